//! Writing output files: parent folders made on the way, every failure an [`Error::Write`]
//! naming the path, and every whole file written atomically ([`write_file`], [`AtomicFile`]):
//! to a temporary file in the same folder, flushed to disk, then renamed over its name, so a
//! reader, a kill or a full disk leaves the old bytes or the new ones, never part of them.
//! Nothing else in the harness opens a file for writing.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::errors::{Error, InputError, Reason};

/// Prefix of the harness's temporary files. Listings skip dot files, so they stay invisible;
/// our own prefix, not the common `.tmp-`, so a clean-up never takes an agent's file for ours.
pub(crate) const TEMP_PREFIX: &str = ".stepreplay-tmp-";

/// Makes `dir` and its parents.
pub(crate) fn create_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        path: dir.to_path_buf(),
        source,
    })
}

/// `dir/sub`, each folder of `sub` made when missing, when every level is, right now, a real
/// folder inside the one above ([`real_subfolder`](crate::safe_path::real_subfolder): `dir`
/// itself no symlink either); else a write error saying which is not. Called before each
/// write into a folder the run fills (`img/`, `--html`, `--captures`, `serve`'s `processed/`),
/// so a folder swapped for a link is refused, never followed.
pub(crate) fn real_subdir(dir: &Path, sub: &Path) -> Result<PathBuf, Error> {
    let refused = |path: &Path, why: String| Error::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(format!(
            "refused: {why} (a folder stepreplay writes into must be a real folder)"
        )),
    };
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(refused(dir, format!("`{}` is a symlink", dir.display())));
    }
    create_dir(dir)?;
    let mut at = dir.to_path_buf();
    for part in sub.iter() {
        let name = part.to_string_lossy();
        let next = at.join(part);
        if std::fs::symlink_metadata(&next).is_err() {
            match std::fs::create_dir(&next) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(source) => return Err(Error::Write { path: next, source }),
            }
        }
        at = crate::safe_path::real_subfolder(&at, &name).map_err(|why| refused(&next, why))?;
    }
    Ok(at)
}

fn create_parent(path: &Path) -> Result<(), Error> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => create_dir(parent),
        None => Ok(()),
    }
}

/// Test hook: the process kills itself (SIGKILL: no clean-up, no flush) at the n-th point
/// where output is written — each block written, each rename, each file retired — so a
/// fault-injection test can put a kill at every point of a run's writing, under a seed.
pub(crate) const KILL_AT_ENV: &str = "STEPREPLAY_FAULT_KILL_AT";

fn fault_point() {
    static AT: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    static SEEN: AtomicUsize = AtomicUsize::new(0);
    let Some(at) = *AT.get_or_init(|| std::env::var(KILL_AT_ENV).ok()?.parse().ok()) else {
        return;
    };
    if SEEN.fetch_add(1, Ordering::SeqCst) + 1 == at {
        #[cfg(unix)]
        // SAFETY: raising a signal at ourselves has no memory-safety preconditions.
        unsafe {
            libc::raise(libc::SIGKILL);
        }
        std::process::abort();
    }
}

/// A temporary name beside `path`, unique to this process and call: two processes writing
/// one file never share a temporary file. The process id in it lets a clean-up tell a dead
/// writer's leftovers from a live writer's work.
fn temp_path(path: &Path) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!("{TEMP_PREFIX}{}-{n}-{name}", std::process::id()))
}

/// A file written atomically: bytes go to a temporary file beside `path`; [`commit`] flushes
/// them to disk and renames the file into place. Dropped without a commit (an error, a panic),
/// the temporary file is removed and `path` keeps what it held.
///
/// [`commit`]: AtomicFile::commit
#[derive(Debug)]
pub(crate) struct AtomicFile {
    out: Option<BufWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
}

impl AtomicFile {
    /// Starts writing `path`, making its folder first.
    pub(crate) fn create(path: &Path) -> Result<AtomicFile, Error> {
        create_parent(path)?;
        let tmp = temp_path(path);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(write_error(path))?;
        Ok(AtomicFile {
            out: Some(BufWriter::new(file)),
            tmp,
            path: path.to_path_buf(),
        })
    }

    /// Flushes, syncs and renames the file into place, then syncs its folder so the rename
    /// itself survives a power cut.
    pub(crate) fn commit(mut self) -> Result<(), Error> {
        let err = write_error(&self.path);
        let out = self.out.take().expect("committed once");
        let placed = out
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .and_then(|()| {
                fault_point();
                std::fs::rename(&self.tmp, &self.path)
            });
        if let Err(e) = placed {
            // A full disk at the flush: the temporary file goes, the old file stays.
            let _ = std::fs::remove_file(&self.tmp);
            return Err(err(e));
        }
        fault_point();
        sync_parent(&self.path);
        Ok(())
    }

    fn out(&mut self) -> &mut BufWriter<File> {
        self.out.as_mut().expect("not committed yet")
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        fault_point();
        self.out().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        fault_point();
        self.out().write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out().flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Best effort: a folder that cannot be opened or synced (some file systems) still has the
/// rename, only not yet on disk.
fn sync_parent(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty())
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// Writes `bytes` to `path` atomically (see [`AtomicFile`]), making its folder first.
pub(crate) fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), Error> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes.as_ref()).map_err(write_error(path))?;
    f.commit()
}

/// Writes `bytes` to `path` only if `path` does not exist yet, atomically: the synced
/// temporary file is hard-linked to its final name, which fails rather than replaces. Returns
/// false when the file already existed (another writer got there first).
pub(crate) fn create_new(path: &Path, bytes: &[u8]) -> Result<bool, Error> {
    create_parent(path)?;
    let tmp = temp_path(path);
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    let linked = written.and_then(|()| std::fs::hard_link(&tmp, path));
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => {
            sync_parent(path);
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(write_error(path)(e)),
    }
}

/// Removes `path`; one already gone is fine.
pub(crate) fn remove_file(path: &Path) -> Result<(), Error> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(write_error(path)(e)),
    }
}

/// Removes the temporary files that writers which are no longer running left in `dir` (one of
/// our own output folders: never an inbox, whose files are an agent's). A live process's
/// temporary files are its work in progress and stay.
pub(crate) fn remove_stale_temps(dir: &Path) -> Result<(), Error> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(TEMP_PREFIX)) else {
            continue;
        };
        let writer = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if writer.is_some_and(alive) {
            continue;
        }
        match std::fs::remove_file(entry.path()) {
            Ok(()) => {}
            // Another clean-up (a second server) took it first.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(write_error(dir)(e)),
        }
    }
    Ok(())
}

/// Whether process `pid` exists (then its temporary files may still be being written).
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    // Signal 0 to pid 0 would ask about our own process group.
    if pid == 0 {
        return false;
    }
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only checks that the process exists; nothing is sent.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    true
}

/// Appends `bytes` to `path`, creating it if needed: several runs may share one file (a CI
/// job summary, a journal).
pub(crate) fn append(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    append_with(path, |w| w.write_all(bytes).map_err(write_error(path)))
}

/// Appends what `write` writes to `path`, creating it if needed, streamed through a buffer
/// (see [`append`]).
pub(crate) fn append_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
) -> Result<(), Error> {
    create_parent(path)?;
    let err = write_error(path);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(&err)?;
    let mut out = BufWriter::new(file);
    write(&mut out)?;
    out.flush().map_err(err)
}

/// Text renderers (`fmt::Write`) written straight into a file's writer. `fmt::Error` carries
/// nothing, so the first I/O error is kept for [`FmtIo::finish`].
pub(crate) struct FmtIo<'w> {
    out: &'w mut dyn Write,
    error: Option<std::io::Error>,
}

impl<'w> FmtIo<'w> {
    /// Text written to `out`.
    pub(crate) fn new(out: &'w mut dyn Write) -> FmtIo<'w> {
        FmtIo { out, error: None }
    }

    /// The first write error, as an [`Error::Write`] naming `path`.
    pub(crate) fn finish(self, path: &Path) -> Result<(), Error> {
        self.error.map_or(Ok(()), |e| Err(write_error(path)(e)))
    }
}

impl std::fmt::Write for FmtIo<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.error.is_some() {
            return Err(std::fmt::Error);
        }
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            std::fmt::Error
        })
    }
}

/// Creates (or truncates) `path` for a writer that streams into it and whose partial output
/// is still worth having (a child's log), making its folder first. A file a reader judges by
/// is written with [`AtomicFile`] instead.
pub(crate) fn create_file(path: &Path) -> Result<File, Error> {
    create_parent(path)?;
    File::create(path).map_err(write_error(path))
}

/// Creates (or truncates) `path` to be written and read back (a spill file), making its
/// folder first.
pub(crate) fn create_scratch(path: &Path) -> Result<File, Error> {
    create_parent(path)?;
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(path)
        .map_err(write_error(path))
}

/// The [`Error::Write`] for `path`, for a writer's own I/O calls.
pub(crate) fn write_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// A report folder this process writes: its lock, held until the process ends, and what the
/// manifest says of the run.
#[derive(Debug)]
struct Claim {
    dir: PathBuf,
    _lock: FolderLock,
    id: String,
    started: String,
    /// The manifest written if memory runs out, ready beforehand: then nothing may allocate.
    #[cfg(unix)]
    out_of_memory: Option<OomManifest>,
}

/// A manifest and where it goes, as the C strings and bytes `libc` takes.
#[cfg(unix)]
#[derive(Debug)]
struct OomManifest {
    tmp: std::ffi::CString,
    path: std::ffi::CString,
    text: Vec<u8>,
}

/// Marks every folder this process claimed incomplete, out of memory, without allocating
/// (see [`crate::limits::out_of_memory`]).
fn mark_out_of_memory() {
    #[cfg(unix)]
    {
        // The lock may be held by the very code that ran out; then nothing is marked.
        let Ok(claimed) = CLAIMED.try_lock() else {
            return;
        };
        for m in claimed.iter().filter_map(|c| c.out_of_memory.as_ref()) {
            // SAFETY: C strings and a byte buffer made before; plain system calls.
            unsafe {
                let fd = libc::open(
                    m.tmp.as_ptr(),
                    libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC,
                    0o644,
                );
                if fd < 0 {
                    continue;
                }
                let ok =
                    libc::write(fd, m.text.as_ptr().cast(), m.text.len()) == m.text.len() as isize;
                libc::fsync(fd);
                libc::close(fd);
                if ok {
                    libc::rename(m.tmp.as_ptr(), m.path.as_ptr());
                } else {
                    libc::unlink(m.tmp.as_ptr());
                }
            }
        }
    }
}

/// The manifest of a run in `dir` that ran out of memory: incomplete, naming the limit.
#[cfg(unix)]
fn oom_manifest(dir: &Path, run: serde_json::Value) -> Option<OomManifest> {
    use std::os::unix::ffi::OsStrExt as _;
    let limit =
        crate::limits::memory_limit().unwrap_or_else(|| "the process's memory limit".to_string());
    let text = crate::json::to_canonical(&serde_json::json!({
        "schema": MANIFEST_SCHEMA,
        "complete": false,
        "incomplete": format!("out of memory under {limit}: the run stopped"),
        "limit": "memory",
        "files": {},
        "run": run,
    }));
    let c = |p: PathBuf| std::ffi::CString::new(p.as_os_str().as_bytes()).ok();
    Some(OomManifest {
        tmp: c(temp_path(&dir.join(MANIFEST)))?,
        path: c(dir.join(MANIFEST))?,
        text: text.into_bytes(),
    })
}

static CLAIMED: std::sync::Mutex<Vec<Claim>> = std::sync::Mutex::new(Vec::new());

/// Whether a writer that finds its folder locked waits for the lock (`--wait`) instead of
/// refusing.
static WAIT_FOR_LOCKS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes every folder lock this process takes from now on wait, with a line on standard
/// error, for the process holding it (`--wait`), instead of refusing.
pub fn wait_for_locks(wait: bool) {
    WAIT_FOR_LOCKS.store(wait, Ordering::SeqCst);
}

/// An advisory lock on a folder (`flock`), held until it is dropped or the process ends.
#[derive(Debug)]
pub struct FolderLock {
    #[cfg(unix)]
    _file: File,
}

/// `dir`, made when missing, resolved; `None` for the system's temporary folder (scratch,
/// never a report folder: never locked).
fn lockable(dir: &Path) -> Result<Option<PathBuf>, Error> {
    create_dir(dir)?;
    let real = dir.canonicalize().map_err(write_error(dir))?;
    let temp = std::env::temp_dir().canonicalize();
    Ok((!temp.is_ok_and(|t| t == real)).then_some(real))
}

/// Locks the folder `real` (named `dir` in errors): a second stepreplay process writing it
/// refuses at once, or waits when [`wait_for_locks`] says so.
fn lock(dir: &Path, real: &Path) -> Result<FolderLock, Error> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd as _;
        let file = File::open(real).map_err(write_error(dir))?;
        // SAFETY: flock on an open descriptor we own; no memory is passed.
        let flock = |how| unsafe { libc::flock(file.as_raw_fd(), how) } == 0;
        if flock(libc::LOCK_EX | libc::LOCK_NB) {
            return Ok(FolderLock { _file: file });
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
            return Err(write_error(dir)(e));
        }
        if !WAIT_FOR_LOCKS.load(Ordering::SeqCst) {
            return Err(write_error(dir)(std::io::Error::other(
                "another stepreplay process is writing this folder; wait for it to end (--wait), \
                 or give this one a folder of its own",
            )));
        }
        eprintln!(
            "waiting for another stepreplay process writing `{}` to end…",
            dir.display()
        );
        while !flock(libc::LOCK_EX) {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(write_error(dir)(e));
            }
        }
        Ok(FolderLock { _file: file })
    }
    #[cfg(not(unix))]
    {
        let _ = (dir, real);
        Ok(FolderLock {})
    }
}

/// Locks the folder `dir` (made when missing) for a writer that is not a run, until the lock
/// is dropped: `baseline accept` and `review` lock their baseline's folder. `None` when this
/// process holds the folder already ([`claim_folder`]) or it is the system's temporary folder.
pub fn lock_folder(dir: &Path) -> Result<Option<FolderLock>, Error> {
    let Some(real) = lockable(dir)? else {
        return Ok(None);
    };
    if crate::par::lock(&CLAIMED).iter().any(|c| c.dir == real) {
        return Ok(None);
    }
    lock(dir, &real).map(Some)
}

/// Claims the report folder `dir` for this run, once per process: an advisory lock on the
/// folder ([`lock`]), held until the process ends; and the previous set retired (its manifest
/// removed), so a run killed before its report phase leaves no set a reader takes for whole.
/// The system's temporary folder is scratch, never a report folder, and is not claimed.
pub fn claim_folder(dir: &Path) -> Result<(), Error> {
    let Some(real) = lockable(dir)? else {
        return Ok(());
    };
    let mut claimed = crate::par::lock(&CLAIMED);
    if claimed.iter().any(|c| c.dir == real) {
        return Ok(());
    }
    crate::limits::on_out_of_memory(mark_out_of_memory);
    let lock = lock(dir, &real)?;
    fault_point();
    remove_file(&dir.join(MANIFEST))?;
    let started = crate::time::now_utc();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!("{}:{nanos}:{}", std::process::id(), real.display());
    let id = format!("{:016x}", crate::fnv::fnv1a64(seed.as_bytes()));
    #[cfg(unix)]
    let out_of_memory = oom_manifest(
        &real,
        serde_json::json!({
            "id": id,
            "pid": std::process::id(),
            "started": started,
            "command": command(),
        }),
    );
    claimed.push(Claim {
        dir: real,
        _lock: lock,
        id,
        started,
        #[cfg(unix)]
        out_of_memory,
    });
    Ok(())
}

/// What the manifest says of the run that wrote `dir` (claimed first): its id, process, start
/// and end time and command line. Only the manifest carries it; the reports stay the same
/// bytes for the same inputs.
fn run_facts(dir: &Path) -> Result<serde_json::Value, Error> {
    claim_folder(dir)?;
    let real = dir.canonicalize().map_err(write_error(dir))?;
    let claimed = crate::par::lock(&CLAIMED);
    let c = claimed.iter().find(|c| c.dir == real);
    Ok(serde_json::json!({
        "id": c.map(|c| c.id.clone()),
        "pid": std::process::id(),
        "started": c.map(|c| c.started.clone()),
        "ended": crate::time::now_utc(),
        "command": command(),
    }))
}

/// This process's command line, as the manifest names it.
fn command() -> Vec<String> {
    std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The name of a file set's manifest in its folder.
pub(crate) const MANIFEST: &str = "manifest.json";

/// The schema of a file set's manifest.
const MANIFEST_SCHEMA: &str = "stepreplay-report-set/1";

/// The files one run writes into one folder, published as a set, so a reader never sees the
/// files of two runs side by side. [`FileSet::begin`] retires the folder's previous set — its
/// manifest first, then every file a set may hold — before anything new is written; each
/// file is then written atomically; and the manifest, written last by [`FileSet::finish`],
/// names the files and their sizes and says whether the run was complete. A kill anywhere
/// leaves whole files of one run only: the old set with its manifest, part of it or of the
/// new one without one, or the new set with its manifest.
#[derive(Debug)]
pub(crate) struct FileSet {
    dir: PathBuf,
    written: std::collections::BTreeMap<String, u64>,
}

impl FileSet {
    /// Retires the previous set in `dir`: its manifest, then each of `names` (every file a
    /// set may hold, written this time or not: an earlier run's file next to this run's is
    /// the mix a reader must never see).
    pub(crate) fn begin(dir: &Path, names: &[&str]) -> Result<FileSet, Error> {
        claim_folder(dir)?;
        for name in std::iter::once(&MANIFEST).chain(names) {
            let path = dir.join(name);
            fault_point();
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(write_error(&path)(e)),
            }
        }
        remove_stale_temps(dir)?;
        Ok(FileSet {
            dir: dir.to_path_buf(),
            written: Default::default(),
        })
    }

    /// Writes `name` in the folder, atomically.
    pub(crate) fn write(&mut self, name: &str, bytes: impl AsRef<[u8]>) -> Result<(), Error> {
        write_file(&self.dir.join(name), bytes)?;
        self.added(name)
    }

    /// Notes a file of the set that another writer put in place (a streamed [`AtomicFile`]).
    pub(crate) fn added(&mut self, name: &str) -> Result<(), Error> {
        let path = self.dir.join(name);
        let len = std::fs::metadata(&path).map_err(write_error(&path))?.len();
        self.written.insert(name.to_string(), len);
        Ok(())
    }

    /// Writes the manifest, last: the set is published. `about` adds what the run wants a
    /// reader to know (whether it was complete, the baseline's hash).
    pub(crate) fn finish(
        self,
        about: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), Error> {
        let mut m = about;
        m.insert("schema".into(), MANIFEST_SCHEMA.into());
        m.insert("run".into(), run_facts(&self.dir)?);
        let files: serde_json::Map<String, serde_json::Value> = self
            .written
            .iter()
            .map(|(n, len)| (n.clone(), serde_json::json!({ "bytes": len })))
            .collect();
        m.insert("files".into(), files.into());
        let text = crate::json::to_canonical(&serde_json::Value::Object(m));
        write_file(&self.dir.join(MANIFEST), text)
    }
}

/// Refuses `file` of a report set unless the set's manifest vouches for it; every reader of a
/// report folder (`merge`, `show-report`, `baseline accept`, `run --last-failed` and
/// `--durations`) asks first. The manifest must be there, say the run was complete, name
/// `file`, and give every file it names its size now: a set being written, left by a killed
/// or stopped run, or changed since is refused, naming the folder.
pub fn check_set(file: &Path) -> Result<(), InputError> {
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let refused = |why: String| {
        InputError::new(
            file,
            Reason::UnvouchedReport,
            format!(
                "the report set in `{}` is not one whole run's: {why}",
                dir.display()
            ),
        )
        .hint("rerun the suite to the end (stepreplay run) and read its reports")
    };
    let path = dir.join(MANIFEST);
    if !path.is_file() {
        return Err(refused(format!(
            "it has no {MANIFEST} (a run is writing it, or was killed before the end)"
        )));
    }
    let m = crate::json::parse_value(&crate::json::read_text(
        &path,
        crate::limits::MANIFEST_BYTES,
    )?)?;
    if m["complete"] != true {
        let why = m["incomplete"].as_str().unwrap_or("no reason given");
        return Err(refused(format!("its {MANIFEST} says incomplete ({why})")));
    }
    let files = m["files"].as_object().cloned().unwrap_or_default();
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
    if !name.as_ref().is_some_and(|n| files.contains_key(n)) {
        return Err(refused(format!(
            "`{}` is not one of the files its {MANIFEST} names",
            file.display()
        )));
    }
    for (name, f) in &files {
        let want = f["bytes"].as_u64();
        let have = std::fs::metadata(dir.join(name)).ok().map(|m| m.len());
        if have != want {
            let have = have.map_or("missing".to_string(), |n| format!("{n} bytes"));
            let want = want.map_or("no size".to_string(), |n| format!("{n} bytes"));
            return Err(refused(format!(
                "`{name}` is {have}, its {MANIFEST} says {want} (changed since the run)"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("stepreplay-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn writes_make_folders_append_appends_and_errors_name_the_path() {
        let dir = temp("basics");
        let f = dir.join("a/b/log.txt");
        append(&f, b"one\n").unwrap();
        append(&f, b"two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "one\ntwo\n");
        write_file(&f, b"new").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new");
        // A file where a folder should be: the error names the path that failed.
        let e = write_file(&f.join("under-a-file.txt"), "x").unwrap_err();
        assert!(e.to_string().contains("log.txt"), "{e}");
        assert_eq!(
            names(&dir.join("a/b")),
            ["log.txt"],
            "no temporary file left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_atomic_file_is_invisible_until_committed_and_vanishes_when_dropped() {
        let dir = temp("atomic");
        let f = dir.join("report.json");
        write_file(&f, b"old").unwrap();
        let mut w = AtomicFile::create(&f).unwrap();
        w.write_all(b"new, half").unwrap();
        w.flush().unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"old");
        drop(w);
        assert_eq!(std::fs::read(&f).unwrap(), b"old");
        assert_eq!(names(&dir), ["report.json"]);
        let mut w = AtomicFile::create(&f).unwrap();
        w.write_all(b"new").unwrap();
        w.commit().unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new");
        assert_eq!(names(&dir), ["report.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn create_new_never_replaces_and_clean_up_spares_live_writers() {
        let dir = temp("create-new");
        let f = dir.join("x.outcome.json");
        assert!(create_new(&f, b"1").unwrap());
        assert!(!create_new(&f, b"2").unwrap());
        assert_eq!(std::fs::read(&f).unwrap(), b"1");
        // A dead writer's leftover goes (no process has pid 0 in a name we write); ours stays.
        let dead = dir.join(format!("{TEMP_PREFIX}0-0-y"));
        let ours = temp_path(&dir.join("z"));
        std::fs::write(&dead, b"").unwrap();
        std::fs::write(&ours, b"").unwrap();
        remove_stale_temps(&dir).unwrap();
        assert!(!dead.exists());
        assert!(ours.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_set_retires_the_old_set_before_writing_and_publishes_last() {
        let dir = temp("set");
        let mut s = FileSet::begin(&dir, &["a.txt", "b.txt"]).unwrap();
        s.write("a.txt", "one").unwrap();
        s.write("b.txt", "two").unwrap();
        s.finish(Default::default()).unwrap();
        assert_eq!(names(&dir), ["a.txt", "b.txt", MANIFEST]);
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(MANIFEST)).unwrap()).unwrap();
        assert_eq!(m["files"]["b.txt"]["bytes"], 3);
        // A new set that writes only `a.txt`: the old `b.txt` and the manifest are gone first.
        let mut s = FileSet::begin(&dir, &["a.txt", "b.txt"]).unwrap();
        assert_eq!(names(&dir), Vec::<String>::new());
        s.write("a.txt", "three").unwrap();
        s.finish(Default::default()).unwrap();
        assert_eq!(names(&dir), ["a.txt", MANIFEST]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
