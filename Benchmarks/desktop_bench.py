"""The GNOME Files extension against `xds where` over the same folder (issue 34; bench only).

Usage: /usr/bin/python3 Benchmarks/desktop_bench.py XDS [FILES] [ROUNDS]

Makes a folder of FILES files (default 5 000), one in ten labelled (x-document-source with an
appInfoURL, half of those also downloaded: xdg URL and quarantine), in a temporary HOME. Then,
ROUNDS times (default 5), alternating:

* `xds where --json --redact --no-archives --files-from -` over the folder's names, whole
  process, wall time;
* the extension (desktop/nautilus/xds_nautilus.py) asked about every file the way Nautilus 43
  asks (one file at a time, the next when the previous is answered, through a GLib main loop),
  with XDS_NAUTILUS_DEBUG=1: the time from its first `update_file_info` in the folder to its
  last `update_complete`, read from its debug log. A fresh extension each round (no result kept).

Prints the medians and their ratio, the ratio of the minimums, and the median of each round's
own ratio (the two runs of a round are next to each other in time: on a shared machine this one
moves least with the others' load). Then CPU time, which other load moves much less than wall
time: `xds where`'s (its process, user + system), and the extension's own (this process, all its
threads, GIO's included, while the driver runs); the extension's xds process does the same work
as the `xds where` beside it, so (own + xds) / xds estimates the ratio on an idle machine, where
the steps run one after the other. Needs /usr/bin/python3 with gi and the Nautilus 4.0 typelib.
"""
import collections
import io
import os
import plistlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

XDS = os.path.abspath(sys.argv[1])
FILES = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
HERE = os.path.dirname(os.path.abspath(__file__))

work = tempfile.mkdtemp(prefix="xds-desktop-bench-")
for name, sub in [("HOME", ""), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config")]:
    os.environ[name] = os.path.join(work, "home", sub)
os.makedirs(os.environ["XDG_DATA_HOME"])
os.environ["XDS_NAUTILUS_XDS"] = XDS
os.environ["XDS_NAUTILUS_DEBUG"] = "1"

import gi  # noqa: E402
gi.require_version("Nautilus", "4.0")
from gi.repository import Gio, GLib, GObject, Nautilus  # noqa: E402
import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location("xds_nautilus", os.path.join(HERE, "..", "desktop", "nautilus", "xds_nautilus.py"))
extension_module = importlib.util.module_from_spec(spec)
real_stderr, sys.stderr = sys.stderr, io.StringIO()  # its "loaded" line
spec.loader.exec_module(extension_module)
sys.stderr = real_stderr

folder = os.path.join(work, "Downloads")
os.mkdir(folder)
label = plistlib.dumps({"identifier": "com.appliedphasor.working-copy", "name": "Working Copy",
                        "appInfoURL": "https://workingcopy.app/appInfo.json"}, fmt=plistlib.FMT_BINARY)
names = []
for index in range(FILES):
    name = "file-%05d.txt" % index
    path = os.path.join(folder, name)
    with open(path, "w") as file:
        file.write("x")
    if index % 10 == 0:
        os.setxattr(path, "user.x-document-source", label)
        if index % 20 == 0:
            os.setxattr(path, "user.xdg.origin.url", b"https://alice:pw@dl.example.com/%d?token=t" % index)
            os.setxattr(path, "user.com.apple.quarantine", b"0083;5fad2a4e;Safari;F643CD5F-6071-46AB-83AB-390BA944DEC5")
    names.append(name)
listing = b"\0".join(n.encode() for n in sorted(os.listdir(folder)))


class File(GObject.Object, Nautilus.FileInfo):
    """A NautilusFileInfo whose location and parent are made once, as Nautilus's are."""

    def __init__(self, path, parent):
        super().__init__()
        self.location = Gio.File.new_for_path(path)
        self.parent = parent
        self.name = os.path.basename(path)
        self.parent_uri = parent.get_uri()

    def do_get_name(self):
        return self.name

    def do_get_parent_uri(self):
        return self.parent_uri

    def do_get_uri_scheme(self):
        return "file"

    def do_get_location(self):
        return self.location

    def do_get_parent_location(self):
        return self.parent

    def do_add_string_attribute(self, name, value):
        pass

    def do_add_emblem(self, name):
        pass


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def where_once():
    cpu = children_cpu()
    start = time.perf_counter()
    done = subprocess.run([XDS, "where", "--json", "--redact", "--no-archives", "--files-from", "-"], cwd=folder,
                          input=listing, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    where_cpus.append(children_cpu() - cpu)
    assert done.stdout.count(b"\n") == FILES // 10, done.stdout[:200]
    return elapsed


def extension_once():
    extension = extension_module.XdsExtension()
    parent = Gio.File.new_for_path(folder)
    files = [File(os.path.join(folder, n), parent) for n in names]
    loop = GLib.MainLoop()
    queue = collections.deque(files)

    def next_file():
        while queue:
            file = queue.popleft()
            if extension.update_file_info_full(None, object(), None, file) == Nautilus.OperationResult.IN_PROGRESS:
                return False  # the next one when this one is answered
        loop.quit()
        return False
    extension_module.complete = lambda provider, handle, closure: GLib.idle_add(next_file)
    log = io.StringIO()
    real_stderr, sys.stderr = sys.stderr, log
    try:
        GLib.idle_add(next_file)
        started, cpu = time.perf_counter(), time.process_time()
        loop.run()
        own_cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - started)
    finally:
        sys.stderr = real_stderr
    times = {}
    for line in log.getvalue().splitlines():
        parts = line.split(" ")
        if len(parts) >= 3:
            times.setdefault(parts[2], []).append(float(parts[1]))
    assert len(times["update_complete"]) == FILES, len(times["update_complete"])
    batches.append(times["batch_end"][0] - times["batch_start"][0])
    if os.environ.get("PHASES"):
        phases = [l.split(" ")[1:3] for l in log.getvalue().splitlines() if l.split(" ")[2] not in ("update_file_info", "update_complete")]
        first = min(times["update_file_info"])
        print("   ", [(p[1], round((float(p[0]) - first) * 1000, 1)) for p in phases], "last", round((max(times["update_complete"]) - first) * 1000, 1))
    return max(times["update_complete"]) - min(times["update_file_info"])


batches, walls, where_cpus, own_cpus = [], [], [], []
where_once(), extension_once()  # warm the page cache and the binary
wheres, extensions, batches, walls, where_cpus, own_cpus = [], [], [], [], [], []
for _ in range(ROUNDS):
    wheres.append(where_once())
    extensions.append(extension_once())
where_median, extension_median = statistics.median(wheres), statistics.median(extensions)
print("desktop bench: %d files, %d labelled, %d rounds" % (FILES, FILES // 10, ROUNDS))
print("  xds where --json --redact --no-archives --files-from -: median %.1f ms (%s)"
      % (where_median * 1000, ", ".join("%.1f" % (w * 1000) for w in wheres)))
print("  extension, first update_file_info to last update_complete: median %.1f ms (%s)"
      % (extension_median * 1000, ", ".join("%.1f" % (e * 1000) for e in extensions)))
print("  of which the folder's reading (listing, xds where, emblems; batch_start to batch_end): median %.1f ms"
      % (statistics.median(batches) * 1000))
print("  the same seen from outside (the driver's loop, start to end): median %.1f ms" % (statistics.median(walls) * 1000))
print("  ratio: %.2f (medians), %.2f (minimums: %.1f / %.1f ms, less disturbed by other load), %.2f (median of the rounds' ratios)"
      % (extension_median / where_median, min(extensions) / min(wheres), min(extensions) * 1000, min(wheres) * 1000,
         statistics.median(e / w for e, w in zip(extensions, wheres))))
where_cpu, own_cpu = statistics.median(where_cpus), statistics.median(own_cpus)
print("  CPU time, medians: xds where %.1f ms; the extension's own (this process, all threads) %.1f ms;"
      " (own + xds where) / xds where: %.2f" % (where_cpu * 1000, own_cpu * 1000, (own_cpu + where_cpu) / where_cpu))
subprocess.run(["rm", "-rf", work])
