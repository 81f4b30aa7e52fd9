#!/usr/bin/env python3
"""Writes a generated suite for the scale benchmark: R synthetic recordings at 2x (one form
app each, 10-20 steps: type into a field, then the next, then Save) made by `stepreplay synth`,
and N scenario files over them.

Usage: gen.py STEPREPLAY OUT_DIR N [R]

Scenario i replays recording i mod R. Recordings are what is costly to make, not to replay:
replaying one costs the same whether or not another scenario used it, as long as its frames
are no longer in the frame cache. With R recordings of ~16 frames of 20 MB each (6 GB for
R = 20) against a 256 MiB cache, scenarios taken in file order cycle through them and miss
the cache every time, so each scenario costs what a scenario of its own would.
"""
import json
import os
import subprocess
import sys


def script(r):
    n = 10 + r % 11  # steps: 10..20 (n - 1 fields, then Save)
    fields = n - 1
    controls = []
    for k in range(fields):
        row, col = divmod(k, 2)
        controls.append({"id": f"label-{k}", "kind": "label", "label": f"Field {r}.{k}",
                         "frame": [20 + col * 330, 20 + row * 36, 110, 22]})
        controls.append({"id": f"field-{k}", "kind": "text-field", "label": f"Field {r}.{k}",
                         "frame": [135 + col * 330, 18 + row * 36, 180, 26]})
    controls.append({"id": "save", "kind": "button", "label": "Save",
                     "frame": [560, 30 + (fields // 2 + 1) * 36, 80, 28]})
    steps = []
    for k in range(fields):
        changes = [{"set": f"field-{k}", "value": f"value {r}-{k}"}]
        if k + 1 < fields:
            changes.append({"focus": f"field-{k + 1}"})
        steps.append({"id": f"type-{k}", "text": f"Type in “Field {r}.{k}”", "action": "type",
                      "control": f"field-{k}", "value": f"value {r}-{k}", "changes": changes})
    steps.append({"id": "save", "text": "Click “Save”", "action": "click", "control": "save",
                  "changes": [{"retitle": "form", "value": f"Form {r} — saved"}]})
    return {
        "schema": "stepreplay-synth/1",
        "name": f"form-{r:02}",
        "scale": 2,
        "guide": {"id": f"guide-form-{r:02}", "title": f"Fill in form {r}"},
        "apps": [{"name": f"Forms {r}", "bundle_id": f"com.example.forms{r}", "frontmost": True,
                  "windows": [{"id": "form", "title": f"Form {r}",
                               "frame": [200, 120, 700, 60 + (fields // 2 + 2) * 36],
                               "controls": controls}]}],
        "focus": "field-0",
        "steps": steps,
        "done": {"text": "The form is saved.", "step_id": "save"},
    }


def main():
    stepreplay, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    r_count = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    os.makedirs(os.path.join(out, "scripts"), exist_ok=True)
    os.makedirs(os.path.join(out, "scenarios"), exist_ok=True)
    used = min(n, r_count)
    for r in range(used):
        name = f"form-{r:02}"
        if not os.path.exists(os.path.join(out, "recordings", name, "recording.json")):
            path = os.path.join(out, "scripts", name + ".json")
            with open(path, "w") as f:
                json.dump(script(r), f, ensure_ascii=False, indent=1)
            subprocess.run([stepreplay, "synth", path, "--out", os.path.join(out, "recordings", name),
                            "--plan-out", os.path.join(out, "scenarios", name)],
                           check=True, capture_output=True)
    for i in range(n):
        r = i % r_count
        sc = {"schema": "stepreplay-scenario/1", "id": f"scale-{i:04}",
              "description": f"form {r}, generated", "plan": f"form-{r:02}/plan.json",
              "recording": f"form-{r:02}", "inputs": {}, "answers": {},
              "expect": {"outcome": "completed"}}
        with open(os.path.join(out, "scenarios", f"scale-{i:04}.json"), "w") as f:
            json.dump(sc, f)


if __name__ == "__main__":
    main()
