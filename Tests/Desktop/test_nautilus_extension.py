"""Unit tests of the GNOME Files extension (desktop/nautilus/xds_nautilus.py), run by
NautilusExtensionTests.swift with /usr/bin/python3 (the system's, which has gi).

Nautilus is played by a driver that asks about a folder's files the way Nautilus 43 does
(src/nautilus-directory-async.c, extension_info_start): one file at a time, the next only
after the previous answer (at once for COMPLETE, after update_complete_invoke for
IN_PROGRESS). Files are `Nautilus.FileInfo` implemented here in Python (GObject). A GLib main
loop runs with a 50 ms heartbeat, and the real xds is reached through a gate: its `where`
waits until the heartbeat has ticked three times, which it can only do when the extension
leaves the main loop free while the process runs (a blocked main thread would hold the gate
shut until xds gives up, and every column would be empty). Every blocking call — Python's
processes, folder listings and file reads, GIO's synchronous calls, waiting for a
GSubprocess — is checked not to come from the extension on the main thread.

Environment (set by the Swift test): XDS_REAL (the built xds), HOME, XDG_DATA_HOME,
XDG_CACHE_HOME (temporary), TZ=Asia/Kolkata, SSL_CERT_FILE and XDS_TEST_APPINFO_URL (a
loopback HTTPS server's appInfo.json).
"""
import builtins
import importlib.util
import os
import plistlib
import stat
import subprocess
import sys
import tempfile
import threading
import unittest

import gi

gi.require_version("Nautilus", "4.0")
from gi.repository import Gio, GLib, GObject, Nautilus  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXTENSION_FILE = os.path.join(HERE, "..", "..", "desktop", "nautilus", "xds_nautilus.py")
WORK = tempfile.mkdtemp(prefix="xds-nautilus-test-")
LOG = os.path.join(WORK, "xds-calls.log")
GATE = os.path.join(WORK, "gate")
WRAPPER = os.path.join(WORK, "xds")
with open(WRAPPER, "w") as script:
    script.write(f"""#!/bin/sh
printf '%s\\n' "$*" >> '{LOG}'
if [ "$1" = where ]; then
    n=0
    while [ ! -e '{GATE}' ] && [ $n -lt 3000 ]; do sleep 0.02; n=$((n + 1)); done
fi
exec "$XDS_REAL" "$@"
""")
os.chmod(WRAPPER, 0o755)
os.environ["XDS_NAUTILUS_XDS"] = WRAPPER

spec = importlib.util.spec_from_file_location("xds_nautilus", EXTENSION_FILE)
xds_nautilus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(xds_nautilus)

# ---------------------------------------------------------------------------------------
# The main-thread guard: what the extension's own code calls on the main thread.

VIOLATIONS = []


def _from_extension():
    frame = sys._getframe(2)
    while frame is not None:
        if os.path.abspath(frame.f_code.co_filename) == os.path.abspath(EXTENSION_FILE):
            return True
        frame = frame.f_back
    return False


def _guard(owner, name):
    original = getattr(owner, name)

    def guarded(*args, **kwargs):
        if threading.current_thread() is threading.main_thread() and _from_extension():
            VIOLATIONS.append("%s.%s" % (getattr(owner, "__name__", owner), name))
        return original(*args, **kwargs)
    setattr(owner, name, guarded)


for owner, name in [(subprocess, "Popen"), (subprocess, "run"), (os, "scandir"), (os, "listdir"),
                    (os, "stat"), (os, "lstat"), (os, "getxattr"), (os, "listxattr"), (builtins, "open"),
                    (os.path, "exists"), (os, "makedirs"), (os, "replace")]:
    _guard(owner, name)
# GIO's blocking calls (their _async forms are what the extension may use).
for owner, name in [(Gio.File, "query_filesystem_info"), (Gio.File, "query_info"), (Gio.File, "enumerate_children"),
                    (Gio.File, "load_contents"), (Gio.File, "make_directory_with_parents"),
                    (Gio.FileEnumerator, "next_file"), (Gio.Subprocess, "wait"), (Gio.Subprocess, "wait_check"),
                    (Gio.Subprocess, "communicate"), (Gio.Subprocess, "communicate_utf8"),
                    # A working folder makes GLib fork the whole process to start a child (gspawn.c
                    # takes posix_spawn only without one): the extension sets it with env -C.
                    (Gio.SubprocessLauncher, "set_cwd")]:
    _guard(owner, name)


# ---------------------------------------------------------------------------------------
# Nautilus, played here.

class FakeFile(GObject.Object, Nautilus.FileInfo):
    """A NautilusFileInfo: a local file's URI, name and parent; what the extension adds."""

    def __init__(self, path, driver):
        super().__init__()
        self.path = path
        self.driver = driver
        self.attributes = {}
        self.emblems = []
        self.invalidated = 0

    def do_get_uri(self):
        return Gio.File.new_for_path(self.path).get_uri()

    def do_get_uri_scheme(self):
        return "file"

    def do_get_name(self):
        # NautilusFileInfo's name is declared UTF-8: Nautilus hands over the bytes of a name that
        # is not, which PyGObject cannot give as text (the extension then asks the location,
        # whose name is a file name). Played here by no name at all.
        name = os.path.basename(self.path)
        return name if os.fsencode(name).decode("utf-8", "replace") == name else None

    def do_get_location(self):
        return Gio.File.new_for_path(self.path)

    def do_get_parent_location(self):
        return Gio.File.new_for_path(self.path).get_parent()

    def do_get_parent_uri(self):
        return Gio.File.new_for_path(self.path).get_parent().get_uri()

    def do_is_directory(self):
        return False

    def do_add_string_attribute(self, name, value):
        self.attributes[name] = value

    def do_get_string_attribute(self, name):
        return self.attributes.get(name)

    def do_add_emblem(self, name):
        self.emblems.append(name)

    def do_invalidate_extension_info(self):
        # As Nautilus does: the extension's attributes go, and the file is asked about again.
        self.invalidated += 1
        self.attributes, self.emblems = {}, []
        self.driver.ask([self])


class Handle:
    """Stands for a NautilusOperationHandle."""


class Driver:
    """Asks the extension about files one at a time, as Nautilus 43 does; runs the main loop
    (with its heartbeat) until every file is answered."""

    def __init__(self, extension):
        self.extension = extension
        self.queue = []
        self.busy = None
        self.loop = GLib.MainLoop()
        self.ticks = 0
        self.gate_at = None
        self.completed = []
        self.until = None
        xds_nautilus.complete = self._complete

    def files(self, folder):
        return {name: FakeFile(os.path.join(folder, name), self) for name in sorted(os.listdir(folder))}

    def ask(self, files):
        self.queue += files
        if self.busy is None:
            GLib.idle_add(self._next)

    def _next(self):
        if self.busy is not None or not self.queue:
            if self.busy is None and not self.queue and self.until is None:
                self.loop.quit()
            return False
        file = self.queue.pop(0)
        handle = Handle()
        result = self.extension.update_file_info_full(self, handle, object(), file)
        if result == Nautilus.OperationResult.IN_PROGRESS:
            self.busy = (handle, file)
        else:
            GLib.idle_add(self._next)
        return False

    def _complete(self, provider, handle, closure):
        assert self.busy is not None and self.busy[0] is handle, "completed a request that was not asked"
        self.completed.append(self.busy[1])
        self.busy = None
        GLib.idle_add(self._next)

    def _heartbeat(self):
        self.ticks += 1
        if self.ticks >= 3 and not os.path.exists(GATE):
            open(GATE, "w").close()
        return True

    def run(self, files=(), until=None):
        """Asks about `files` and runs the loop until all are answered (and `until()` holds)."""
        if os.path.exists(GATE):
            os.remove(GATE)
        self.ticks = 0
        beat = GLib.timeout_add(50, self._heartbeat)
        watchdog = GLib.timeout_add_seconds(100, self._give_up)
        self.until = until
        self.ask(list(files))
        if until is not None:
            def check():
                if until() and self.busy is None and not self.queue:
                    self.until = None
                    self.loop.quit()
                    return False
                return True
            GLib.timeout_add(20, check)
        try:
            self.loop.run()
        finally:
            GLib.source_remove(beat)
            GLib.source_remove(watchdog)

    def _give_up(self):
        self.loop.quit()
        raise AssertionError("the main loop ran for 100 s without an answer")


def calls(kind):
    if not os.path.exists(LOG):
        return []
    with open(LOG) as log:
        return [line for line in log.read().splitlines() if line.split(" ", 1)[0] == kind]


def set_attribute(path, name, value):
    os.setxattr(path, "user." + name, value)


HOSTILE_NAME = "evil\n\u202ename\x1b[31m.txt"
HOSTILE_APP = "App\x1b]0;pwned\x07\u202e" + "x" * 400
LATIN1_NAME = os.fsdecode(b"caf\xe9.txt")  # not UTF-8: the byte 0xE9 as Python has it, "\udce9"


class ExtensionTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = os.path.join(WORK, "Downloads")
        os.mkdir(cls.folder)
        for name in ["labelled.txt", "download.bin", "mail.eml", HOSTILE_NAME, "plain.txt", "zoned.exe", LATIN1_NAME]:
            with open(os.path.join(cls.folder, name), "w") as file:
                file.write("x")
        cls.app_info_url = os.environ["XDS_TEST_APPINFO_URL"]
        labelled = subprocess.run([os.environ["XDS_REAL"], "set", os.path.join(cls.folder, "labelled.txt"),
                                   "--id", "com.appliedphasor.working-copy", "--name", "Working Copy",
                                   "--app-info-url", cls.app_info_url], capture_output=True)
        assert labelled.returncode == 0, labelled
        download = os.path.join(cls.folder, "download.bin")
        set_attribute(download, "xdg.origin.url",
                      b"https://alice:s3cret@dl.example.com/file.bin?token=SECRETTOKEN#frag")
        set_attribute(download, "com.apple.quarantine", b"0083;5fad2a4e;Safari;F643CD5F-6071-46AB-83AB-390BA944DEC5")
        set_attribute(os.path.join(cls.folder, "mail.eml"), "com.apple.metadata:kMDItemWhereFroms",
                      plistlib.dumps(["Joe <joe@example.com>", "Re: plans", "<id@example.com>"],
                                     fmt=plistlib.FMT_BINARY))
        set_attribute(os.path.join(cls.folder, HOSTILE_NAME), "x-document-source",
                      plistlib.dumps({"identifier": "com.example.evil", "name": HOSTILE_APP}, fmt=plistlib.FMT_BINARY))
        latin1 = os.path.join(cls.folder, LATIN1_NAME)
        set_attribute(latin1, "x-document-source",
                      plistlib.dumps({"identifier": "com.example.latin", "name": "Latin App"}, fmt=plistlib.FMT_BINARY))
        set_attribute(latin1, "xdg.origin.url", b"https://carol:pw@latin.example/caf.txt?t=1")
        set_attribute(latin1, "com.apple.quarantine", b"0083;5fad2a4e;Firefox;F643CD5F-6071-46AB-83AB-390BA944DEC5")
        with open(os.path.join(cls.folder, "zoned.exe:Zone.Identifier"), "w") as zone:
            zone.write("[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://bob:hunter2@files.example.org/z.exe?sig=abc\r\n")
        cls.extension = xds_nautilus.XdsExtension()
        cls.driver = Driver(cls.extension)
        cls.files = cls.driver.files(cls.folder)
        cls.driver.run(cls.files.values())

    def test_1_columns(self):
        """The three columns of each file, as SPEC §6b formats them."""
        # An attribute the extension leaves out is shown empty, as "" would be.
        columns = {name: (f.attributes.get("xds_source_app", ""), f.attributes.get("xds_downloaded_from", ""),
                          f.attributes.get("xds_downloaded", "")) for name, f in self.files.items()}
        self.assertEqual(self.files["plain.txt"].attributes, {}, "no marks: nothing added")
        self.assertEqual(columns["labelled.txt"], ("Working Copy", "", ""))
        self.assertEqual(columns["download.bin"], ("", "https://***@dl.example.com/file.bin", "2020-11-12 17:57"))
        self.assertEqual(columns["mail.eml"], ("", "", ""), "Mail's WhereFroms has no URL")
        self.assertEqual(columns["plain.txt"], ("", "", ""))
        self.assertEqual(columns["zoned.exe"], ("", "https://***@files.example.org/z.exe", ""))
        # A name that is not UTF-8: xds is given its bytes and names it \udce9 in JSON.
        self.assertEqual(columns[LATIN1_NAME], ("Latin App", "https://***@latin.example/caf.txt", "2020-11-12 17:57"))
        app = columns[HOSTILE_NAME][0]
        self.assertEqual(len(app), 200)
        self.assertTrue(app.startswith("App\\u{1b}]0;pwned\\u{7}\\u{202e}xxx"), app)
        self.assertTrue(app.endswith("x\u2026"))
        for text in (value for row in columns.values() for value in row):
            self.assertFalse(any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2066" for c in text), text)
            for secret in ("s3cret", "SECRETTOKEN", "hunter2", "sig=abc", "alice", "frag"):
                self.assertNotIn(secret, text)

    def test_2_emblems(self):
        """emblem-downloads for download marks; no app emblem before the icon is cached."""
        self.assertEqual(self.files["download.bin"].emblems, ["emblem-downloads"])
        self.assertEqual(self.files["mail.eml"].emblems, ["emblem-downloads"])
        self.assertEqual(self.files[LATIN1_NAME].emblems, ["emblem-downloads"])
        self.assertEqual(self.files["labelled.txt"].emblems, [])
        self.assertEqual(self.files["plain.txt"].emblems, [])

    def test_3_one_process_per_folder(self):
        """One `xds where` for the whole folder, on its first file, with the options of §6b."""
        wheres = calls("where")
        self.assertEqual(wheres, ["where --json --redact --no-archives --files-from -"])
        self.assertEqual(len(self.driver.completed), 1, "one file waited; the others were answered at once")

    def test_4_nothing_on_the_main_thread(self):
        self.assertEqual(VIOLATIONS, [])
        self.assertGreaterEqual(self.driver.ticks, 3)

    def test_5_properties(self):
        models = self.extension.get_models([self.files["download.bin"]])
        self.assertEqual(len(models), 1)
        self.assertEqual(models[0].props.title, "Where From")
        items = [(item.props.name, item.props.value) for item in models[0].props.model]
        self.assertEqual([name for name, _ in items], ["quarantine (xattr)", "xdg (xattr)"])
        text = repr(items)
        self.assertIn("agent: Safari", text)
        self.assertIn("url: https://***@dl.example.com/file.bin", text)
        for secret in ("s3cret", "SECRETTOKEN", "frag"):
            self.assertNotIn(secret, text)
        self.assertEqual(self.extension.get_models([self.files["plain.txt"]]), [])
        self.assertEqual(self.extension.get_models([self.files["plain.txt"], self.files["mail.eml"]]), [])

    def test_6_menu_strip(self):
        """Strip Download Marks, through its menu item: the marks go, the label stays, the
        file is asked about again (a new `xds where` run) and shows nothing downloaded."""
        download, labelled = self.files["download.bin"], self.files["labelled.txt"]
        items = self.extension.get_file_items([download, labelled])
        labels = [item.props.label for item in items]
        self.assertEqual(labels, ["Strip Download Marks", "Fetch App Icon"])
        before = len(calls("where"))
        items[0].activate()
        self.driver.run(until=lambda: download.invalidated == 1 and len(calls("where")) == before + 1)
        self.assertEqual(calls("strip")[-1].split(" ")[:4], ["strip", "--keep", "x-document-source", "--"])
        self.assertEqual(len(calls("where")), before + 1)
        self.assertEqual(download.attributes, {}, "nothing downloaded, no app: no column text")
        self.assertEqual(download.emblems, [])
        self.assertIn("user.x-document-source", os.listxattr(labelled.path))
        self.assertEqual([n for n in os.listxattr(download.path) if "xdg" in n or "quarantine" in n], [])
        self.assertEqual(VIOLATIONS, [])

    def test_7_menu_fetch_icon(self):
        """Fetch App Icon: `xds icon` fetches (the one request), the emblem is installed as a
        themed icon under $XDG_DATA_HOME (16 px at scales 1 and 2), the file is asked again
        and carries it."""
        labelled = self.files["labelled.txt"]
        items = self.extension.get_file_items([labelled])
        self.assertEqual([item.props.label for item in items], ["Fetch App Icon"])
        items[0].activate()
        self.driver.run(until=lambda: labelled.invalidated >= 1 and "xds_source_app" in labelled.attributes)
        name = xds_nautilus.emblem_name(self.app_info_url)
        self.assertEqual(labelled.emblems, [name], calls("icon"))
        self.assertRegex(name, r"^emblem-xds-[0-9a-f]{16}$")
        base = os.path.join(os.environ["XDG_DATA_HOME"], "icons", "hicolor")
        for folder, side in (("16x16", 16), ("16x16@2", 32)):
            with open(os.path.join(base, folder, "emblems", name + ".png"), "rb") as png:
                data = png.read()
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
            self.assertEqual((int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")), (side, side))
        fetches = [c for c in calls("icon") if "--any-cached" not in c]
        self.assertEqual(len(fetches), 2, "the two sizes, fetched once each: %r" % fetches)
        self.assertEqual(VIOLATIONS, [])

    def test_7b_emblem_from_the_cache(self):
        """The icon in xds's cache but no emblem installed yet (a new session): the file is
        answered at once, the emblem is made from the cache beside it (`--any-cached`, no
        request) and the file is asked about again and answered from the same run."""
        name = xds_nautilus.emblem_name(self.app_info_url)
        for path in xds_nautilus.emblem_paths(name):
            os.remove(path)
        more = os.path.join(WORK, "more")
        os.mkdir(more)
        open(os.path.join(more, "doc.txt"), "w").close()
        labelled = subprocess.run([os.environ["XDS_REAL"], "set", os.path.join(more, "doc.txt"), "--id", "com.example.app",
                                   "--name", "Example", "--app-info-url", self.app_info_url], capture_output=True)
        self.assertEqual(labelled.returncode, 0, labelled)
        extension = xds_nautilus.XdsExtension()
        driver = Driver(extension)
        file = FakeFile(os.path.join(more, "doc.txt"), driver)
        before = len(calls("where"))
        driver.run([file], until=lambda: file.emblems == [name])
        self.assertEqual(file.invalidated, 1)
        self.assertEqual(file.attributes["xds_source_app"], "Example")
        self.assertEqual(len(calls("where")), before + 1, "one run: the file's second answer is from it")
        self.assertTrue(calls("icon")[-1].startswith("icon --size 16 --scale 2 --any-cached"), calls("icon")[-1])
        xds_nautilus.complete = self.driver._complete
        self.assertEqual(VIOLATIONS, [])

    def test_8_large_folder(self):
        """More than 10 000 entries: no column, no emblem, no process."""
        big = os.path.join(WORK, "big")
        os.mkdir(big)
        for index in range(10_001):
            open(os.path.join(big, "f%05d" % index), "w").close()
        set_attribute(os.path.join(big, "f00000"), "xdg.origin.url", b"https://example.com/x")
        before = len(calls("where"))
        driver = Driver(self.extension)
        files = [FakeFile(os.path.join(big, "f%05d" % i), driver) for i in (0, 1, 2)]
        driver.run(files)
        self.assertEqual(len(calls("where")), before)
        self.assertEqual([f.attributes for f in files], [{}, {}, {}])
        self.assertEqual(files[0].emblems, [])
        xds_nautilus.complete = self.driver._complete
        self.assertEqual(VIOLATIONS, [])

    def test_9_leaving_ends_the_process(self):
        """cancel_update (the folder left while its `xds where` runs): the process ends, no
        answer is given, the folder is forgotten."""
        other = os.path.join(WORK, "other")
        os.mkdir(other)
        open(os.path.join(other, "a"), "w").close()
        driver = Driver(self.extension)
        file = FakeFile(os.path.join(other, "a"), driver)
        if os.path.exists(GATE):
            os.remove(GATE)
        handle = Handle()
        result = self.extension.update_file_info_full(driver, handle, object(), file)
        self.assertEqual(result, Nautilus.OperationResult.IN_PROGRESS)
        folder = self.extension.folders[other]
        context = GLib.MainContext.default()
        for _ in range(6000):  # until the folder is listed and xds started (the gate holds it)
            if folder.process is not None:
                break
            if not context.iteration(False):
                threading.Event().wait(0.01)
        process = folder.process
        self.assertIsNotNone(process)
        self.extension.cancel_update(driver, handle)
        process.wait()
        self.assertTrue(process.get_if_signaled())
        self.assertEqual(process.get_term_sig(), 9)
        self.assertNotIn(other, self.extension.folders)
        for _ in range(50):
            context.iteration(False)
        self.assertEqual(driver.completed, [])
        xds_nautilus.complete = self.driver._complete
        self.assertEqual(VIOLATIONS, [])


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    subprocess.run(["rm", "-rf", WORK])
    sys.exit(0 if result.wasSuccessful() else 1)
