#!/usr/bin/env python3
"""A reference agent for `stepreplay agent`: follows the plan by the accessibility tree.

It speaks the JSON-lines protocol of docs/agent.md on stdin/stdout, with the standard library
only. For each step it puts a `stop_if` in words to the person, asks before a `confirm` step,
asks for every sensitive value each time it types one, asks before typing over text the guide
does not mention, then finds the control by its label and role (or the plan's point) and acts.
It stops — `done` — the moment the person says no.

On the StepBack bridge (a `task` message; as the coach when it says `role: "coach"`: a short
intake first, and a clinician named when the person mentions a health matter) it keeps the
bridge's safety contract: it reads
manifest.json, states the exact changes and asks for approval, writes each command as a new
file in inbox/ (updates carry the `expectedUpdatedAt` it read), polls processed/ and failed/,
asks the person to open StepBack when no outcome appears, and reports the real outcome. It
never requests a deletion: it tells the person what to delete and stops.
"""
import json
import os
import sys
import uuid


# Set STEPREPLAY_AGENT_LOG to a file to keep every line received and sent (the tests check
# them against docs/agent-protocol.schema.json).
LOG = os.environ.get("STEPREPLAY_AGENT_LOG")


def log(line):
    if LOG:
        with open(LOG, "a") as f:
            f.write(line.rstrip("\n") + "\n")


def send(msg):
    line = json.dumps(msg)
    log(line)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def norm(s):
    return " ".join((s or "").replace("\u2026", "").replace("...", "").split()).casefold()


TEXT_ROLES = {"AXStaticText", "AXHeading"}


def own_name(e):
    for key in ("title", "description"):
        if (e.get(key) or "").strip():
            return e[key]
    if e.get("ax_role") in TEXT_ROLES:
        return e.get("value")
    return None


def elements(ax):
    for app in ax.get("apps", []):
        for win in app.get("windows", []):
            stack = list(reversed(win.get("elements", [])))
            while stack:
                e = stack.pop()
                yield win, e
                stack.extend(reversed(e.get("children", [])))


def find_selector(dom, selector):
    """Browser plans: `#id` selectors only (the standard library has no CSS engine); the DOM
    node's id is the AX element's."""
    if not dom or not selector.startswith("#") or any(c in selector[1:] for c in " .[>:+~#"):
        return None
    hits = [n["id"] for n in dom["nodes"] if n.get("attrs", {}).get("id") == selector[1:]]
    if len(hits) > 1:
        # Two nodes with one id: which one the plan means is ambiguous, and it says so.
        return {"ambiguous": len(hits)}
    return {"element": hits[0]} if hits else None


def find(ax, target, width, height):
    """The element the target names: same label (and role, window when given); else the one
    at the plan's point, or the middle of its bounds."""
    label = norm(target.get("label"))
    by_id = {e["id"]: e for _, e in elements(ax)}

    def name(e):
        # A field is often named by the label that points at it (labelled-by).
        return own_name(e) or own_name(by_id.get(e.get("labelled_by"), {}))

    if label:
        hits = [
            (w, e) for w, e in elements(ax)
            if norm(name(e)) == label
            and (not target.get("ax_role") or e.get("ax_role") == target["ax_role"])
            and e.get("enabled", True)
        ]
        if target.get("window"):
            same = [(w, e) for w, e in hits if norm(w.get("title")) == norm(target["window"])]
            hits = same or hits
        # Same-named controls (two fields both labelled City) are told apart by the plan's
        # point: the one under it.
        xy = plan_point(target, width, height)
        if len(hits) > 1 and xy:
            under = [(w, e) for w, e in hits if inside(e.get("frame", {}), *xy)]
            hits = under or hits
        if hits:
            return {"element": hits[0][1]["id"]}
    xy = plan_point(target, width, height)
    if not xy:
        return None
    x, y = xy
    hit = at_point(ax, x, y)
    return {"element": hit} if hit else {"point": [x, y]}


def plan_point(target, width, height):
    """The plan's point for a target in pixels, or the middle of its bounds."""
    point, b = target.get("point"), target.get("bounds")
    if point:
        return point["x"] * width, point["y"] * height
    if b:
        return (b["x"] + b["width"] / 2) * width, (b["y"] + b["height"] / 2) * height
    return None


def inside(f, x, y):
    return f.get("x", 0) <= x < f.get("x", 0) + f.get("width", 0) and \
        f.get("y", 0) <= y < f.get("y", 0) + f.get("height", 0)


def at_point(ax, x, y):
    """The innermost element under (x, y) in the front-most window that has one."""
    for app in ax.get("apps", []):
        for win in app.get("windows", []):
            found = None
            stack = list(reversed(win.get("elements", [])))
            while stack:
                e = stack.pop()
                f = e.get("frame", {})
                if f.get("x", 0) <= x < f.get("x", 0) + f.get("width", 0) and \
                        f.get("y", 0) <= y < f.get("y", 0) + f.get("height", 0):
                    found = e["id"]
                stack.extend(reversed(e.get("children", [])))
            if found:
                return found
    return None


def answered(ask, msg, what):
    """The person's answer to `msg`; no answer stops the plan (never a guess or an example)."""
    said = yield from ask(msg)
    if said == "no answer":
        raise LookupError(what)
    return said


def fill(text, inputs, plan, ask):
    """The words to type; sensitive inputs are asked for (each time)."""
    if "literal" in text:
        return text["literal"]
    if "secret" in text:
        return (yield from answered(ask, {"type": "ask", "kind": "sensitive",
                                          "text": "what should I type?"}, "value"))
    out = ""
    for part in text.get("template", []):
        if "text" in part:
            out += part["text"]
            continue
        iid = part["input"]
        spec = next((i for i in plan["inputs"] if i["id"] == iid), {})
        if spec.get("sensitive"):
            out += yield from answered(ask, {"type": "ask", "kind": "sensitive", "input": iid,
                                             "text": "what is the %s?" % spec.get("name", iid)}, iid)
        elif iid in inputs:
            out += inputs[iid]
        elif spec.get("each_time"):
            # A value that changes every run is asked for, never the recorded example.
            out += yield from answered(ask, {"type": "ask", "kind": "input", "input": iid,
                                             "text": "what is the %s this time?" % spec.get("name", iid)}, iid)
        else:
            out += spec.get("example") or ""
    return out


def field_value(ax, element_id):
    for _, e in elements(ax):
        if e["id"] == element_id:
            return e.get("value") or ""
    return ""


def selected_all_before(plan, i):
    """The plan's step before selected all of the field's text (Ctrl+A, ⌘A, a triple
    click): typing then replaces what the plan chose to select, with nothing to ask."""
    if i == 0:
        return False
    prev = plan["steps"][i - 1]["action"]
    if prev["kind"] == "press":
        keys = prev["keys"].lower().replace("\u2318", "cmd+").replace(" ", "")
        return keys in ("ctrl+a", "cmd+a", "command+a", "control+a", "cmd++a")
    return prev["kind"] == "click" and prev.get("count") == 3 and not prev.get("drag")


def take_step(obs):
    """A generator: yields messages, receives the person's answers."""
    plan, i = obs["plan"], obs["step"]
    if i >= len(plan["steps"]):
        yield {"type": "done", "text": "all steps are done"}
        return
    step = plan["steps"][i]
    sid = step["id"]

    def ask(msg):
        msg.setdefault("step", sid)
        answer = yield msg
        return answer

    stop_if = step.get("stop_if")
    if stop_if and not stop_if.get("when"):
        said = yield from ask({"type": "ask", "kind": "stop-if", "text": "stop if " + stop_if["text"] + "?"})
        if said != "go-on":
            yield {"type": "done", "text": "stopped: " + stop_if["text"]}
            return
    if step.get("confirm"):
        said = yield from ask({"type": "ask", "kind": "confirm", "text": step["confirm"]})
        if said != "approve":
            yield {"type": "done", "text": "stopped: you declined step %s" % sid}
            return
    width, height = obs["screen"]
    target = step.get("target")
    if target and target.get("selector"):
        where = find_selector(obs.get("dom"), target["selector"])
    elif target:
        where = find(obs["ax"], target, width, height)
    else:
        where = {}
    if where is None:
        yield {"type": "done", "text": "I cannot find the control for step %s" % sid}
        return
    if "ambiguous" in where:
        yield {"type": "done", "text": "%d controls match step %s: it is ambiguous, so I stop"
               % (where["ambiguous"], sid)}
        return
    action = step["action"]
    kind = action["kind"]
    if kind == "type":
        try:
            text = yield from fill(action["text"], obs["inputs"], plan, ask)
        except LookupError as missing:
            yield {"type": "done", "text": "stopped: I need the %s" % missing}
            return
        current = field_value(obs["ax"], where.get("element", ""))
        if current.strip() and norm(current) != norm(text) and norm(current) not in norm(step["text"]) \
                and not selected_all_before(plan, i):
            said = yield from ask({"type": "ask", "kind": "replace",
                                   "text": "the field already holds text; replace it?"})
            if said != "replace":
                yield {"type": "done", "text": "stopped: kept the text in the field"}
                return
        yield dict(type="act", action="type", text=text, **where)
    elif kind == "press":
        yield dict(type="act", action="press", keys=action["keys"], **where)
    elif kind in ("paste", "copy", "navigate"):
        yield dict(type="act", action=kind, **where)
    else:
        # A right, double, modified or dragging click says so, as the step does.
        plain = {"button": "left", "count": 1, "modifiers": [], "drag": False}
        how = {k: action[k] for k in plain if k in action and action[k] != plain[k]}
        yield dict(type="act", action="click", **how, **where)


BRIDGE_VERBS = {"createCustomWorkout", "updateCustomWorkout", "createRoutine", "updateRoutine",
                "createPlan", "updatePlan", "activatePlan"}


def find_object(manifest, object_id):
    state = manifest.get("state", {})
    for kind, key in (("custom workout", "customWorkouts"), ("routine", "routines"), ("plan", "plans")):
        for o in state.get(key, []):
            if o["id"].lower() == (object_id or "").lower():
                return kind, o
    return None, None


WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


def workout_name(manifest, workout_id):
    for w in manifest.get("catalog", []) + manifest.get("state", {}).get("customWorkouts", []):
        if w["id"].lower() == workout_id.lower():
            return w["name"]
    return workout_id


def describe(verb, payload, manifest, made=None):
    """The change in words, every value stated; `made` names the routines of this batch by
    command id, for a slot that refers to one by fromCommand."""
    if verb == "activatePlan":
        _, plan = find_object(manifest, payload["id"])
        return "make the plan \u201c%s\u201d My Week" % (plan or {}).get("name", payload["id"])
    what = {"CustomWorkout": "custom workout", "Routine": "routine", "Plan": "plan"}
    kind = next(v for k, v in what.items() if verb.endswith(k))
    text = "%s the %s \u201c%s\u201d" % ("create" if verb.startswith("create") else "replace",
                                     kind, payload["name"])
    if "steps" in payload:
        text += " (" + ", ".join("%s %d\u00d7%d s, %d s rest, %d s after" % (
            workout_name(manifest, s["workoutID"]), s["sets"], s["workSeconds"],
            s["setRestSeconds"], s["restAfterSeconds"]) for s in payload["steps"]) + ")"
    if "days" in payload:
        def routine(ref):
            if "fromCommand" in ref:
                return (made or {}).get(ref["fromCommand"], ref["fromCommand"])
            return (find_object(manifest, ref.get("id"))[1] or {}).get("name", ref.get("id"))
        busy = ["%s: %s" % (WEEKDAYS[d["weekday"] - 1], ", ".join(
            "\u201c%s\u201d" % routine(s["routineRef"]) for s in d["slots"]))
            for d in payload["days"] if d["slots"]]
        text += " (" + "; ".join(busy + ["other days rest"]) + ")"
    if payload.get("notes"):
        text += " with the note \u201c%s\u201d" % payload["notes"]
    return text


HEALTH_WORDS = ("pain", "sore", "injur", "hurt", "condition", "surgery", "pregnan", "asthma",
                "heart", "blood pressure", "diabet")


def coach_intake():
    """The coach's short intake; if the person names a health matter, the medical boundary."""
    answer = yield {"type": "ask", "kind": "question",
                    "text": "Before I set anything up: how experienced are you, how much time do "
                            "you have per session and per week, and do you have any injury or "
                            "health condition I should know about?"}
    if any(w in str(answer).lower() for w in HEALTH_WORDS):
        yield {"type": "say", "text": "I am a fitness coach, not a clinician: please check with "
               "a doctor or physiotherapist before you start, and stop any movement that hurts. "
               "I will keep it gentle and use StepBack's built-in workouts."}


def proposal_text(commands, lines):
    """What the person is asked to approve: every change in words (`lines`, one a command)."""
    return "I will make these changes in StepBack: " + "; ".join(lines) + ". Shall I?"


def bridge_task(task):
    """A generator: yields messages, receives each reply (a result or an answer)."""
    reply = yield {"type": "read", "path": "manifest.json"}
    manifest = json.loads(reply["text"])
    if task.get("role") == "coach":
        yield from coach_intake()
    for c in task["hint"]:
        if c["verb"] not in BRIDGE_VERBS:
            kind, obj = find_object(manifest, c.get("payload", {}).get("id"))
            name = (obj or {}).get("name", "it")
            yield {"type": "done", "result": "nothing-written",
                   "text": "I cannot delete through the bridge. To delete the %s \u201c%s\u201d, "
                           "open StepBack and delete it there." % (kind or "item", name)}
            return
    commands, lines, made = [], [], {}
    cid_of = lambda n: str(uuid.uuid5(uuid.NAMESPACE_URL, "stepreplay-reference/%s/%d" % (task["scenario"], n)))
    for n, c in enumerate(task["hint"], 1):
        payload = json.loads(json.dumps(c["payload"]))
        if c["verb"].startswith("update"):
            _, obj = find_object(manifest, payload.get("id"))
            payload["expectedUpdatedAt"] = (obj or {}).get("updatedAt")
        # A hint's slot names a routine of the same request as "#n": the n-th command's id.
        for d in payload.get("days", []):
            for s in d["slots"]:
                ref = s["routineRef"].get("fromCommand", "")
                if ref.startswith("#"):
                    s["routineRef"]["fromCommand"] = cid_of(int(ref[1:]))
        cid = cid_of(n)
        if c["verb"] in ("createRoutine", "updateRoutine"):
            made[cid] = payload["name"]
        commands.append({"schemaVersion": 2, "commandID": cid, "verb": c["verb"], "payload": payload})
        lines.append(describe(c["verb"], payload, manifest, made))
    answer = yield {"type": "ask", "kind": "approve", "text": proposal_text(commands, lines)}
    if answer != "approve":
        yield {"type": "done", "result": "nothing-written", "text": "All right, I changed nothing."}
        return
    for n, cmd in enumerate(commands, 1):
        name = "20260101T000000Z-%02d-%s.json" % (n, cmd["commandID"])
        yield {"type": "write", "path": "inbox/" + name, "text": json.dumps(cmd)}
    ids = {c["commandID"] for c in commands}
    outcomes, asked = {}, False
    for attempt in range(12):
        for folder in ("processed", "failed"):
            listing = yield {"type": "list", "path": folder}
            for entry in listing.get("entries") or []:
                cid = entry[: -len(".outcome.json")]
                if entry.endswith(".outcome.json") and cid in ids and cid not in outcomes:
                    got = yield {"type": "read", "path": folder + "/" + entry}
                    outcomes[cid] = json.loads(got["text"])
        if len(outcomes) == len(ids):
            break
        if attempt == 3 and not asked:
            asked = True
            yield {"type": "ask", "kind": "open-app",
                   "text": "No outcome has appeared yet. Please open StepBack on your Mac."}
        else:
            yield {"type": "wait"}
    if len(outcomes) < len(ids):
        yield {"type": "done", "result": "no-outcome",
               "text": "StepBack has not processed the changes yet; they will apply when it runs."}
        return
    failed = [o for o in outcomes.values() if o["status"] != "succeeded"]
    if failed:
        yield {"type": "done", "result": "failed", "text": "It did not work: " + "; ".join(
            "%s (%s)" % (o.get("reason"), o.get("message", "")) for o in failed)}
    else:
        yield {"type": "done", "result": "succeeded", "text": "Done: " + "; ".join(lines) + "."}


def main():
    gen = None
    for line in sys.stdin:
        log(line)
        msg = json.loads(line)
        try:
            if msg["type"] == "observe":
                gen = take_step(msg)
                send(next(gen))
            elif msg["type"] == "task":
                gen = bridge_task(msg)
                send(next(gen))
            elif msg["type"] == "answer":
                send(gen.send(msg["answer"]))
            elif msg["type"] == "result":
                send(gen.send(msg))
        except StopIteration:
            send({"type": "done", "text": "nothing more to do"})


if __name__ == "__main__":
    main()
