# xds for GNOME Files (Nautilus 43 through nautilus-python 4; later versions untested).
#
# Shows where files came from, as `xds where` reads it (x-document-source, quarantine,
# WhereFroms, xdg, Zone.Identifier, in attributes, Samba streams and AppleDouble sidecars):
#
# * list-view columns `xds_source_app` (Source App), `xds_downloaded_from` (Downloaded From,
#   without credentials, query or fragment: `xds where --redact`) and `xds_downloaded`
#   (Downloaded, `YYYY-MM-DD HH:MM` local time, since Nautilus sorts extension columns as
#   strings);
# * an emblem: the source app's masked icon installed as a themed icon
#   ($XDG_DATA_HOME/icons/hicolor/16x16/emblems/emblem-xds-HASH.png and 16x16@2/..., HASH from
#   the appInfoURL), else `emblem-downloads` for a file with download marks. Nautilus shows an
#   emblem only when the icon theme has it (gtk_icon_theme_has_gicon in
#   src/nautilus-file.c, nautilus_file_get_emblem_icons); a loose PNG would be dropped;
# * a properties section "Where From" and two menu items, "Strip Download Marks" and
#   "Fetch App Icon" (the one action that makes a request).
#
# How Nautilus 43 asks (src/nautilus-directory-async.c, extension_info_start): one file of a
# folder at a time, the next only after the previous answer (update_complete_invoke). So on the
# first file of a folder the extension lists the folder itself and runs one
# `xds where --json --redact --no-archives --files-from -` over its entries, and answers every
# later file from that result; a file asked again after the result it was answered from (it
# changed) or after an action gets a new run. No file is read and no process is waited for on
# Nautilus's main thread (GIO's asynchronous calls, GSubprocess read asynchronously); a process
# is only started there, by posix_spawn, never a fork of Nautilus (see spawn). get_models
# (properties) and get_file_items (menu) are synchronous and answer from the folder's result.
# Names go to xds as bytes (not UTF-8 too: its JSON gives each such byte as \udcXX, which
# json.loads makes the lone surrogate Python's file names use). Local folders only (not
# `filesystem::remote`, as Nautilus's own thumbnail policy), and a folder of more than 10 000
# entries gets nothing.
# Browsing never makes a request: emblems come from `xds icon --any-cached`.
#
# API: nautilus-python 4 (InfoProvider.update_file_info_full, ColumnProvider, MenuProvider,
# PropertiesModelProvider; see its examples update-file-info-async.py and
# md5sum-properties-model.py) and the Icon Theme Specification (freedesktop.org) for the
# hicolor folders.
#
# Environment: XDS_NAUTILUS_XDS, the xds binary to run (tests; default: the installed one);
# XDS_NAUTILUS_DEBUG=1, a debug log on standard error (monotonic seconds, event, folder, name).

import datetime
import hashlib
import json
import os
import re
import sys
import time

import gi

gi.require_version("Nautilus", "4.0")
from gi.repository import Gio, GLib, GObject, Nautilus  # noqa: E402

# `make install` writes the installed binary's absolute path here.
INSTALLED_XDS = "/usr/bin/xds"
MAX_ENTRIES = 10_000
MAX_FOLDERS = 64
CUT = 200
PROCESS_SECONDS = 120  # a child process still running then is killed
COLUMNS = (
    ("xds_source_app", "Source App", "The app the file came from (x-document-source)"),
    ("xds_downloaded_from", "Downloaded From", "Where the file was downloaded from (xds where --redact)"),
    ("xds_downloaded", "Downloaded", "When the file was downloaded (local time)"),
)
DOWNLOAD_KINDS = {"quarantine", "where-froms", "downloaded-date", "xdg", "zone-identifier"}


DEBUG = bool(os.environ.get("XDS_NAUTILUS_DEBUG"))


def xds_binary():
    """The xds to run: XDS_NAUTILUS_XDS when set (tests), else the installed one."""
    return os.environ.get("XDS_NAUTILUS_XDS") or INSTALLED_XDS


def debug(event, folder="", name=""):
    if DEBUG:
        sys.stderr.write("xds-nautilus %.6f %s %s %s\n" % (time.monotonic(), event, escaped(str(folder)), escaped(str(name))))
        sys.stderr.flush()


def debug_file(event, folder, name, at=None):
    """A file's line of the debug log (`update_file_info`, `update_complete`): written for every
    file, so it costs little (the folder's escaped path is kept with it). Called only when DEBUG;
    `at`: when it happened (monotonic seconds), if not now."""
    sys.stderr.write("xds-nautilus %.6f %s %s %s\n" % (at or time.monotonic(), event, folder.shown, escaped(name)))


def debug_answered(folder, name, asked):
    """The two lines of a file answered at once (asked at `asked`, answered now), in one write."""
    shown = escaped(name)
    sys.stderr.write("xds-nautilus %.6f update_file_info %s %s\nxds-nautilus %.6f update_complete %s %s\n"
                     % (asked, folder.shown, shown, time.monotonic(), folder.shown, shown))


# ---------------------------------------------------------------------------------------
# Text as `xds where` shows it (Sources/XDSSystem/VisibleText.swift), cut at 200 characters.

def _needs_escape(code):
    return (code < 0x20 or code == 0x5C or 0x7F <= code <= 0x9F or code == 0xAD or code == 0x061C
            or 0x200B <= code <= 0x200F or code in (0x2028, 0x2029) or 0x202A <= code <= 0x202E
            or 0x2066 <= code <= 0x2069 or code == 0xFEFF or 0xD800 <= code <= 0xDFFF)


_ESCAPED = re.compile("[\x00-\x1f\\\\\x7f-\x9f\xad\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")


def escaped(text):
    """`text` with every invisible or terminal-driving character escaped, as `xds where`
    escapes it (`\\n`, `\\r`, `\\t`, `\\\\`, else `\\u{HEX}`); lone surrogates (bytes that were
    not UTF-8) too."""
    if not _ESCAPED.search(text):
        return text
    out = []
    for ch in text:
        code = ord(ch)
        if not _needs_escape(code):
            out.append(ch)
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        else:
            out.append("\\u{%x}" % code)
    return "".join(out)


def shown(text):
    """Escaped and cut at CUT characters (the last one an ellipsis when cut)."""
    text = escaped(text)
    return text if len(text) <= CUT else text[:CUT - 1] + "\u2026"


_LOCAL_TIMES = {}


def local_time(iso):
    """`YYYY-MM-DD HH:MM` in local time for an ISO 8601 UTC time, or "" when it does not parse
    (kept per text: a folder's downloads often share their times' text)."""
    found = _LOCAL_TIMES.get(iso)
    if found is None:
        if len(_LOCAL_TIMES) > 4096:
            _LOCAL_TIMES.clear()
        found = _LOCAL_TIMES[iso] = _local_time(iso)
    return found


def _local_time(iso):
    try:
        moment = datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=datetime.timezone.utc)
        return moment.astimezone().strftime("%Y-%m-%d %H:%M")
    except (ValueError, OverflowError, OSError, AttributeError):
        return ""


_DOWNLOAD_SCHEME = re.compile(r"^\s*(https?|ftp):", re.IGNORECASE)


class Answer:
    """What the extension shows for one file, computed from its `xds where --json` record."""

    def __init__(self, marks):
        self.marks = [m for m in marks if isinstance(m, dict)]
        self.app = ""
        self.app_info_url = None
        self.url = ""
        self.time = ""
        for mark in self.marks:
            if mark.get("kind") == "x-document-source" and isinstance(mark.get("documentSource"), dict):
                source = mark["documentSource"]
                if not self.app:
                    self.app = source.get("name") or source.get("identifier") or ""
                if self.app_info_url is None and isinstance(source.get("appInfoURL"), str):
                    self.app_info_url = source["appInfoURL"]
        self.url = self._first_url()
        for kind in ("quarantine", "downloaded-date"):
            found = next((m["time"] for m in self.marks if m.get("kind") == kind and isinstance(m.get("time"), str)), None)
            if found:
                self.time = local_time(found)
                break
        self.app, self.url = shown(str(self.app)), shown(self.url)
        self.downloaded = any(m.get("kind") in DOWNLOAD_KINDS for m in self.marks)
        self.strippable = any(m.get("kind") != "x-document-source" for m in self.marks)
        self.emblem = None

    def _first_url(self):
        xdg = next((m for m in self.marks if m.get("kind") == "xdg"), None)
        if xdg and isinstance(xdg.get("url"), str):
            return xdg["url"]
        froms = next((m for m in self.marks if m.get("kind") == "where-froms"), None)
        if froms and isinstance(froms.get("urls"), list):
            for text in froms["urls"]:
                if isinstance(text, str) and _DOWNLOAD_SCHEME.match(text):
                    return text
        zone = next((m for m in self.marks if m.get("kind") == "zone-identifier"), None)
        if zone and isinstance(zone.get("hostURL"), str):
            return zone["hostURL"]
        return ""

    def properties(self):
        """(name, value) per mark, as `xds where --redact` lists them: `KIND (STORE)`, then
        each field on a line (`field: value`) and the attribute it was read from."""
        items = []
        for mark in self.marks:
            lines = []
            for key, value in mark.items():
                if key in ("kind", "store", "name"):
                    continue
                if isinstance(value, dict):
                    for inner, inner_value in value.items():
                        if inner != "other":
                            lines.append("%s: %s" % (inner, _text(inner_value)))
                else:
                    lines.append("%s: %s" % (key, _text(value)))
            if isinstance(mark.get("name"), str):
                lines.append(mark["name"])
            items.append((shown("%s (%s)" % (mark.get("kind", "?"), mark.get("store", "?"))),
                          "\n".join(shown(line) for line in lines)))
        return items


def _text(value):
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return str(value)


EMPTY = Answer([])


# ---------------------------------------------------------------------------------------
# Work off the main thread.
#
# nautilus-python keeps Python's lock while Nautilus's main loop runs, so a Python thread
# would hardly ever run (tried: a worker thread stalled at its first system call). Everything
# slow is therefore done by GLib outside Python: the folder's filesystem and listing through
# GIO's asynchronous calls (GLib's worker threads), and xds as a GSubprocess whose output is
# read asynchronously. The main thread only starts them and takes their results in callbacks.

# Makes an app's emblem (16 px at scales 1 and 2) in a child process: with `any` from the
# cache only (`xds icon --any-cached`, no request) and only when missing; with `fetch`, fetched.
EMBLEM_SCRIPT = r"""
xds=$1 sample=$2 small=$3 large=$4 mode=$5
mkdir -p "${small%/*}" "${large%/*}" || exit 1
if [ "$mode" = any ] && [ -s "$small" ] && [ -s "$large" ]; then exit 0; fi
cached=--any-cached
[ "$mode" = fetch ] && cached=
"$xds" icon --size 16 --scale 1 $cached -o "$small" -- "$sample" &&
"$xds" icon --size 16 --scale 2 $cached -o "$large" -- "$sample" || exit 1
# The theme folder's time changes: GTK rescans it and finds the new icon.
touch "${small%/16x16/*}"
"""


def emblem_name(app_info_url):
    """The themed icon name of an app: from a hash of its appInfoURL, never from a name the
    attribute holds."""
    return "emblem-xds-" + hashlib.sha256(app_info_url.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def emblem_paths(name):
    """Where the emblem's two PNGs go ($XDG_DATA_HOME/icons/hicolor, the Icon Theme
    Specification's user folder; hicolor's index.theme lists 16x16/emblems and 16x16@2/emblems)."""
    base = os.path.join(GLib.get_user_data_dir(), "icons", "hicolor")
    return (os.path.join(base, "16x16", "emblems", name + ".png"),
            os.path.join(base, "16x16@2", "emblems", name + ".png"))


ENV = "/usr/bin/env"  # coreutils' (8.28 and later: -C)


def spawn(argv, done, cwd=None, stdin=None, cancellable=None):
    """Starts `argv` as a GSubprocess (stdin from `stdin` bytes, stdout read) and calls
    `done(status, stdout_bytes)` on the main loop when it has ended; status None when it could
    not start or was killed. Returns the subprocess (None when it could not start).

    Starting it is the one step taken on Nautilus's main thread, and it must not be a fork of
    Nautilus: GLib forks (copying the page tables of the whole process: 12-27 ms for a
    300 MB process here, Nautilus's size with thumbnails in memory) unless it can use
    posix_spawn, which suspends the caller only until the child has called exec (0.1 ms,
    whatever the size). gspawn.c (GLib 2.74, fork_exec) takes posix_spawn only without a
    working folder and without closing descriptors: so the folder is set by `env -C` in the
    child, and descriptors are inherited (GLib and Python open theirs close-on-exec; xds uses
    none it did not open). The child's output is then read asynchronously, never waited for.

    Read in pauses: `xds where` writes a record at a time, and reading each as it came woke the
    main loop for every one (500 wake-ups, 7-8 ms of the main thread for a folder of 5 000 files
    with 500 marked); now a read takes what has come (up to 1 MiB, the pipe widened to hold
    that much) and the next one waits READ_PAUSE_MS, or the child's end, whichever is first."""
    flags = Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_SILENCE | Gio.SubprocessFlags.INHERIT_FDS
    flags |= Gio.SubprocessFlags.STDIN_PIPE if stdin is not None else Gio.SubprocessFlags.STDIN_INHERIT
    launcher = Gio.SubprocessLauncher.new(flags)
    if cwd is not None:
        if "=" in argv[0]:  # env would take it for a variable: GLib's working folder (a fork)
            launcher.set_cwd(cwd)
        else:
            argv = [ENV, "-C", cwd] + list(argv)
    try:
        process = launcher.spawnv([os.fsdecode(a) if isinstance(a, bytes) else a for a in argv])
    except GLib.Error as error:
        debug("error", "", error.message)
        GLib.idle_add(lambda: done(None, b"") and False)
        return None
    timer = GLib.timeout_add_seconds(PROCESS_SECONDS, lambda: process.force_exit() and False)
    if stdin is not None:
        # Spliced from memory as the pipe takes it, the pipe closed after it (a child that
        # ends early only cuts it short).
        source = Gio.MemoryInputStream.new_from_bytes(GLib.Bytes.new(stdin))
        process.get_stdin_pipe().splice_async(
            source, Gio.OutputStreamSpliceFlags.CLOSE_SOURCE | Gio.OutputStreamSpliceFlags.CLOSE_TARGET,
            GLib.PRIORITY_DEFAULT, cancellable, _spliced)
    out = process.get_stdout_pipe()
    _widen(out)
    chunks = []
    # eof: None while reading, True at the end of the output, False when reading failed (or was
    # cancelled); waited: whether the child's end was seen (its status can be asked).
    state = {"eof": None, "exited": False, "waited": False, "next": 0, "ended": False}

    def read():
        state["next"] = 0
        out.read_bytes_async(READ_SIZE, GLib.PRIORITY_DEFAULT, cancellable, got)
        return False

    def got(stream, result):
        try:
            data = stream.read_bytes_finish(result).get_data()
        except GLib.Error:  # cancelled (the folder was left), or the pipe failed
            state["eof"] = False
            return finish()
        if not data:
            state["eof"] = True
            return finish()
        chunks.append(data)
        if state["exited"]:
            read()
        else:
            state["next"] = GLib.timeout_add(READ_PAUSE_MS, read)

    def exited(process, result):
        try:
            process.wait_finish(result)
            state["waited"] = True
        except GLib.Error:
            pass
        state["exited"] = True
        if state["next"]:  # what is left is read at once
            GLib.source_remove(state["next"])
            read()
        finish()

    def finish():
        if state["eof"] is None or not state["exited"] or state["ended"]:
            return
        state["ended"] = True
        GLib.source_remove(timer)
        if not state["eof"]:
            return done(None, b"")
        status = process.get_exit_status() if state["waited"] and process.get_if_exited() else None
        done(status, b"".join(chunks))
    process.wait_async(cancellable, exited)
    read()
    return process


READ_SIZE = 1 << 20
READ_PAUSE_MS = 10


def _widen(stream):
    """Lets the pipe hold READ_SIZE bytes (F_SETPIPE_SZ, Linux; up to
    /proc/sys/fs/pipe-max-size, 1 MiB by default), so that the child seldom waits for a read."""
    try:
        import fcntl
        fcntl.fcntl(stream.get_fd(), getattr(fcntl, "F_SETPIPE_SZ", 1031), READ_SIZE)
    except (OSError, AttributeError, ImportError):
        pass


def _spliced(stream, result):
    try:
        stream.splice_finish(result)
    except GLib.Error:
        pass  # the child ended first, or the folder was left: its output says what it read


def make_emblem(sample, app_info_url, done, fetch=False):
    """Makes the emblem of the app at `app_info_url` from `xds icon SAMPLE` (a child process)
    and calls `done(name or None)`."""
    name = emblem_name(app_info_url)
    small, large = emblem_paths(name)
    spawn(["/bin/sh", "-c", EMBLEM_SCRIPT, "sh", xds_binary(), sample, small, large, "fetch" if fetch else "any"],
          lambda status, _: done(name if status == 0 else None))


class Folder:
    """One folder's state, used on the main thread only. Names are `str` as Python has file
    names (a byte that is not UTF-8 as a lone surrogate, `os.fsdecode`'s way), which is also how
    `json.loads` gives back `xds where --json`'s `\\udcXX`."""

    def __init__(self, uri, path):
        self.uri = uri  # the folder's URI, as NautilusFileInfo.get_parent_uri gives it
        self.path = path
        self.shown = escaped(path)  # for the debug log
        self.started = 0  # the latest batch started
        self.ready = 0  # the latest batch finished
        self.running = False
        self.disabled = False
        self.answers = {}  # name -> Answer, from batch `ready`: the files with marks
        # name -> Answer (EMPTY for no mark) for each name batch `ready` listed that has not
        # been answered from it yet: a file asked about is answered from here at once, by one
        # dict lookup; once answered it is taken out, so asking again (the file changed) runs
        # xds again.
        self.pending = {}
        self.waiting = []  # (provider, handle, closure, file, name)
        self.labelled = {}  # name -> file answered without its app's emblem (being made)
        self.process = None  # the running xds where
        self.cancellable = Gio.Cancellable()


class Batch:
    """One reading of a folder, in steps chained on the main loop: is it remote, and its entries
    (at most MAX_ENTRIES + 1 read), both asked at once (a remote answer stops the listing);
    then one `xds where` over them. Each step is GIO's or a child process's work; `finish`
    hands the result to the extension (which sees to the emblems)."""

    def __init__(self, folder, number, finish):
        self.folder, self.number, self.finish = folder, number, finish
        self.location = Gio.File.new_for_path(folder.path)
        self.names = []
        self.answers = {}
        self.local = None  # the filesystem's answer: True, or None until it comes
        self.listed = False
        self.ended = False
        # The listing's own cancellable: cancelled when the folder is left, or found remote.
        self.listing = Gio.Cancellable()
        self.watch = folder.cancellable.connect(lambda *_: self.listing.cancel())
        debug("batch_start", folder.path, number)
        self.location.query_filesystem_info_async("filesystem::remote", GLib.PRIORITY_DEFAULT,
                                                  folder.cancellable, self._filesystem)
        self.location.enumerate_children_async("standard::name", Gio.FileQueryInfoFlags.NOFOLLOW_SYMLINKS,
                                               GLib.PRIORITY_DEFAULT, self.listing, self._enumerated)

    def _end(self, disabled=False):
        if self.ended:
            return
        self.ended = True
        self.listing.cancel()
        self.folder.cancellable.disconnect(self.watch)
        debug("batch_end", self.folder.path, self.number)
        self.finish(self.folder, self.number, self.answers, self.names, disabled)

    def _failed(self, error):
        if not self.folder.cancellable.is_cancelled() and not self.ended:
            debug("error", self.folder.path, getattr(error, "message", repr(error)))
        self._end()

    def _filesystem(self, location, result):
        try:
            info = location.query_filesystem_info_finish(result)
        except GLib.Error as error:
            return self._failed(error)
        if info.get_attribute_boolean("filesystem::remote"):
            return self._end(disabled=True)
        self.local = True
        if self.listed:
            self._run()

    def _enumerated(self, location, result):
        try:
            self.enumerator = location.enumerate_children_finish(result)
        except GLib.Error as error:
            return self._failed(error)
        self.enumerator.next_files_async(MAX_ENTRIES + 1, GLib.PRIORITY_DEFAULT, self.listing, self._listed)

    def _listed(self, enumerator, result):
        try:
            infos = enumerator.next_files_finish(result)
        except GLib.Error as error:
            enumerator.close_async(GLib.PRIORITY_DEFAULT, None, None)
            return self._failed(error)
        # GFileInfo's name is a file name (bytes): PyGObject gives it as os.fsdecode would.
        self.names += [info.get_name() for info in infos]
        if len(self.names) > MAX_ENTRIES:
            enumerator.close_async(GLib.PRIORITY_DEFAULT, None, None)
            self.names = []
            return self._end(disabled=True)
        if infos:
            return enumerator.next_files_async(MAX_ENTRIES + 1, GLib.PRIORITY_DEFAULT, self.listing, self._listed)
        enumerator.close_async(GLib.PRIORITY_DEFAULT, None, None)
        self.listed = True
        if self.local:
            self._run()

    def _run(self):
        """Listed, and local: xds where over the names."""
        if not self.names:
            return self._end()
        debug("listed", self.folder.path, len(self.names))
        # The names' exact bytes, NUL-separated (os.fsencode of each, in one call).
        listing = "\0".join(self.names).encode(sys.getfilesystemencoding(), "surrogateescape")
        # Its output is read once it has ended (xds writes a record at a time: reading them as
        # they come woke the main loop for each and cost more than parsing them all at once).
        self.folder.process = spawn(
            [xds_binary(), "where", "--json", "--redact", "--no-archives", "--files-from", "-"], self._where,
            cwd=self.folder.path, stdin=listing, cancellable=self.folder.cancellable)

    def _records(self, lines):
        """Some lines of `xds where --json`'s output: one record each."""
        # A name that is not UTF-8 comes back with \udcXX for each such byte: json.loads makes
        # that the lone surrogate os.fsdecode makes of the byte, so the record finds its name.
        try:
            records = json.loads(b"[" + b",".join(lines) + b"]")  # one call for them all
        except ValueError:
            records = []
            for line in lines:
                try:
                    records.append(json.loads(line))
                except ValueError:
                    continue
        for record in records:
            try:
                self.answers[record["file"]] = Answer(record.get("marks") or [])
            except (KeyError, TypeError, AttributeError):
                continue

    def _where(self, _status, output):
        debug("where_done", self.folder.path, len(output))
        self.folder.process = None
        if not self.folder.cancellable.is_cancelled():
            self._records(output.splitlines())
        self._end()


def complete(provider, handle, closure):
    """Tells Nautilus the file's information is complete (a function of its own, so that
    tests can watch it)."""
    Nautilus.info_provider_update_complete_invoke(closure, provider, handle, Nautilus.OperationResult.COMPLETE)


def _handle_key(handle):
    # The C pointer of the handle, as its wrapper's repr names it; else the wrapper itself.
    found = re.findall(r"0x[0-9a-f]+", repr(handle))
    return found[-1] if found else id(handle)


def _name_of(file):
    """The file's name as Python has file names (os.fsdecode of the bytes on disk)."""
    try:
        name = file.get_name()  # NautilusFile's own copy: no allocation of a GFile
        if name:
            return name
    except UnicodeError:
        pass  # not UTF-8 (NautilusFileInfo's name is declared UTF-8): the location's keeps the bytes
    location = file.get_location()
    return location.get_basename() if location is not None else None


def _local_folder(uri):
    """The local path of the folder at `uri`, or None when it is not a local folder."""
    if not uri or not uri.startswith("file:"):
        return None
    try:
        return GLib.filename_from_uri(uri)[0]
    except GLib.Error:
        return None


debug("loaded", os.path.abspath(__file__))
COMPLETE = Nautilus.OperationResult.COMPLETE
IN_PROGRESS = Nautilus.OperationResult.IN_PROGRESS


class XdsExtension(GObject.GObject, Nautilus.ColumnProvider, Nautilus.InfoProvider,
                   Nautilus.MenuProvider, Nautilus.PropertiesModelProvider):
    """The extension nautilus-python loads."""

    def __init__(self):
        super().__init__()
        self.folders = {}  # local path -> Folder
        self.by_uri = {}  # folder URI -> Folder, or None for a folder that is not local
        # appInfoURL -> the emblem's name, or None when it could not be made from the cache
        # (tried again after Fetch App Icon); a URL whose emblem is being made is in `making`.
        self.emblems = {}
        self.making = set()

    # Columns ---------------------------------------------------------------------------

    def get_columns(self):
        return [Nautilus.Column(name=name, attribute=name, label=label, description=description)
                for name, label, description in COLUMNS]

    # File information ------------------------------------------------------------------

    def update_file_info_full(self, provider, handle, closure, file):
        # Every file of a folder after the first comes here: two questions to the file (its
        # folder's URI, its name) and one dict lookup answer it. The rest is _update.
        asked = time.monotonic() if DEBUG else 0
        folder = self.by_uri.get(file.get_parent_uri())
        if folder is not None:
            try:
                name = file.get_name() or _name_of(file)  # _name_of's first step, inline
            except UnicodeError:
                name = _name_of(file)
            answer = folder.pending.pop(name, None)
            if answer is not None:
                if answer is not EMPTY:
                    self._apply(file, folder, name, answer)
                if DEBUG:
                    debug_answered(folder, name, asked)
                return COMPLETE
        return self._update(provider, handle, closure, file, asked)

    def _folder_of(self, file):
        """The file's Folder (made when new), or None when the file is not local."""
        uri = file.get_parent_uri()
        if uri in self.by_uri:
            return self.by_uri[uri]
        path = _local_folder(uri)
        if path is None:
            if len(self.by_uri) > 1024:
                self.by_uri = {u: f for u, f in self.by_uri.items() if f is not None}
            self.by_uri[uri] = None
            return None
        folder = self.folders.get(path)
        if folder is None:
            # Results of folders seen long ago go (dicts keep insertion order: oldest first).
            for old in [p for p, f in self.folders.items() if not f.running and not f.waiting][:-MAX_FOLDERS]:
                self._drop(self.folders[old])
            folder = self.folders[path] = Folder(uri, path)
        self.by_uri[uri] = folder
        return folder

    def _drop(self, folder):
        self.folders.pop(folder.path, None)
        if self.by_uri.get(folder.uri) is folder:
            del self.by_uri[folder.uri]

    def _update(self, provider, handle, closure, file, asked=0):
        """A file its folder's result does not answer: the folder's first, one changed or new
        since, or one of a folder not read (yet)."""
        folder = self._folder_of(file)
        name = _name_of(file)
        if folder is None or name is None:
            return COMPLETE
        if DEBUG:
            debug_file("update_file_info", folder, name, asked)
        if folder.disabled:
            if DEBUG:
                debug_file("update_complete", folder, name)
            return COMPLETE
        folder.waiting.append((provider, handle, closure, file, name))
        if not folder.running:
            folder.running = True
            folder.started += 1
            Batch(folder, folder.started, self.batch_done)
        return IN_PROGRESS

    def batch_done(self, folder, batch, answers, names, disabled):
        folder.running = False
        if self.folders.get(folder.path) is not folder:
            return  # left (cancel_update): nobody waits
        folder.ready, folder.answers, folder.disabled = batch, answers, disabled
        folder.pending = dict.fromkeys(names, EMPTY) if not disabled else {}
        if not disabled:
            folder.pending.update(answers)
        folder.labelled = {}
        # Emblems already made are used at once; the others are made beside the answers (no
        # file waits for them: their processes start once the main loop is idle after the
        # answers) and their files asked about again when one appears.
        missing = []
        for name, answer in answers.items():
            url = answer.app_info_url
            if url is None:
                continue
            if url in self.emblems:
                answer.emblem = self.emblems[url]
            elif url not in self.making:
                self.making.add(url)
                missing.append((os.path.join(folder.path, name), url))
        if missing:
            GLib.idle_add(self._make_emblems, missing, priority=GLib.PRIORITY_LOW)
        waiting, folder.waiting = folder.waiting, []
        for provider, handle, closure, file, name in waiting:
            if not disabled:
                # Answered from this result: taken out of `pending` as the fast path does.
                answer = folder.pending.pop(name, EMPTY)
                if answer is not EMPTY:
                    self._apply(file, folder, name, answer)
            if DEBUG:
                debug_file("update_complete", folder, name)
            complete(provider, handle, closure)

    def _make_emblems(self, missing):
        for sample, url in missing:
            make_emblem(sample, url, lambda emblem, url=url: self.emblem_made(url, emblem))
        return False

    def emblem_made(self, url, emblem):
        """An app's emblem is made (or could not be): the files of that app already answered
        are asked about again, and answered from their folder's result with the emblem."""
        self.making.discard(url)
        self.emblems[url] = emblem
        if emblem is None:
            return
        for folder in self.folders.values():
            again = []
            for name, answer in folder.answers.items():
                if answer.app_info_url == url:
                    answer.emblem = emblem
                    if name in folder.labelled:
                        folder.pending[name] = answer  # the current result answers it again
                        again.append(folder.labelled.pop(name))
            for file in again:
                file.invalidate_extension_info()

    def _apply(self, file, folder, name, answer):
        """Adds a file's columns and emblem (a file with marks only: an attribute left out
        shows as empty, nautilus-file.c giving "" for an extension attribute it does not have)."""
        if answer.app_info_url and answer.emblem is None and answer.app_info_url not in self.emblems:
            folder.labelled[name] = file  # to ask about again when its emblem is made
        if answer.app:
            file.add_string_attribute("xds_source_app", answer.app)
        if answer.url:
            file.add_string_attribute("xds_downloaded_from", answer.url)
        if answer.time:
            file.add_string_attribute("xds_downloaded", answer.time)
        if answer.emblem:
            file.add_emblem(answer.emblem)
        elif answer.downloaded:
            file.add_emblem("emblem-downloads")

    def cancel_update(self, provider, handle):
        """Nautilus stopped asking (the folder was left): the folder's process ends."""
        key = _handle_key(handle)
        for path, folder in list(self.folders.items()):
            kept = [w for w in folder.waiting if _handle_key(w[1]) != key]
            if len(kept) == len(folder.waiting):
                continue
            folder.waiting = kept
            if not kept:
                debug("cancel", path)
                folder.cancellable.cancel()
                if folder.process is not None:
                    folder.process.force_exit()
                self._drop(folder)

    def _known(self, file):
        """The file's Folder and name when its folder has been read, else (None, name)."""
        folder = self.by_uri.get(file.get_parent_uri())
        return folder, _name_of(file)

    def forget(self, file):
        """The next question about `file` waits for a new run of its folder."""
        folder, name = self._known(file)
        if folder is not None:
            folder.pending.pop(name, None)

    def answer_for(self, file):
        """The folder's answer for `file`, or None when its folder has not been read."""
        folder, name = self._known(file)
        if folder is None or not folder.ready or folder.disabled:
            return None
        return folder.answers.get(name, EMPTY)

    # Properties ------------------------------------------------------------------------

    def get_models(self, files):
        if len(files) != 1:
            return []
        answer = self.answer_for(files[0])
        if answer is None or not answer.marks:
            return []
        section = Gio.ListStore.new(Nautilus.PropertiesItem)
        for name, value in answer.properties():
            section.append(Nautilus.PropertiesItem(name=name, value=value))
        return [Nautilus.PropertiesModel(title="Where From", model=section)]

    # Menu ------------------------------------------------------------------------------

    def get_file_items(self, *arguments):
        files = arguments[-1]  # (files) in nautilus-python 4; (window, files) before
        answers = [(file, self.answer_for(file)) for file in files]
        answers = [(file, answer) for file, answer in answers if answer is not None]
        items = []
        strippable = [file for file, answer in answers if answer.strippable]
        if strippable:
            item = Nautilus.MenuItem(name="XdsExtension::StripDownloadMarks", label="Strip Download Marks",
                                     tip="Remove the marks of where the files were downloaded from (xds strip)")
            item.connect("activate", self._strip, strippable)
            items.append(item)
        labelled = [(file, answer) for file, answer in answers if answer.app_info_url]
        if labelled:
            item = Nautilus.MenuItem(name="XdsExtension::FetchAppIcon", label="Fetch App Icon",
                                     tip="Fetch the icon of the app the files came from (xds icon)")
            item.connect("activate", self._fetch_icon, labelled)
            items.append(item)
        return items

    def _strip(self, _item, files):
        paths = [file.get_location().get_path() for file in files]
        spawn([xds_binary(), "strip", "--keep", "x-document-source", "--"] + paths,
              lambda status, _: self._invalidate(files))

    def _fetch_icon(self, _item, labelled):
        samples = {}
        for file, answer in labelled:
            samples.setdefault(answer.app_info_url, file.get_location().get_path())
        remaining = [len(samples)]

        def made(emblem, url):
            if emblem is not None:
                self.emblems[url] = emblem
            else:
                self.emblems.pop(url, None)
            remaining[0] -= 1
            if remaining[0] == 0:
                self._invalidate([file for file, _ in labelled])
        for url, sample in samples.items():
            make_emblem(sample, url, lambda emblem, url=url: made(emblem, url), fetch=True)

    def _invalidate(self, files):
        """After an action: Nautilus asks about the files again, and each gets a new `xds
        where` run (not the folder's last result, which is older than the action)."""
        for file in files:
            self.forget(file)
            file.invalidate_extension_info()
