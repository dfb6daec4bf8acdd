#!/usr/bin/env python3
"""Builds one libFuzzer target, Fuzz/NAME/*.swift -> Fuzz/bin/NAME, from what Package.swift says.

    python3 Fuzz/build.py NAME          build Fuzz/bin/NAME
    python3 Fuzz/build.py --plan NAME   print the modules NAME needs, in build order, and stop

Nothing here names a module: the modules a target needs are the ones its entry files import
(`@testable import XDocSourceArchive`) and, from there, their dependencies in Package.swift
(`swift package dump-package`: each target's path and dependencies). They are built in
dependency order into Fuzz/bin/modules: a Swift target with swiftc (instrumented,
-enable-testing so entries reach internal functions, -D FUZZING, e.g. the PNG CRC check off),
a C target (one with .c files) with clang and a module map for its include/ folder, the way
SwiftPM makes one. A module is rebuilt only when one of its files, a module it depends on or
this script is newer than what was built. A target setting this script does not know (a define,
an explicit source list; defines and C header search paths are applied) stops the build with its name, so the fuzz build cannot drift from
Package.swift quietly.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MODULES = os.path.join(ROOT, "Fuzz", "bin", "modules")
SWIFT_FLAGS = ["-sanitize=fuzzer,address", "-parse-as-library", "-O", "-g", "-D", "FUZZING"]
C_FLAGS = ["-fsanitize=address", "-O1", "-g"]


def fail(message):
    sys.exit(f"Fuzz/build.py: {message}")


def package():
    """Package.swift as `swift package dump-package` gives it."""
    swift = os.environ.get("SWIFT", "swift")
    result = subprocess.run([swift, "package", "dump-package"], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        fail("swift package dump-package failed:\n" + result.stderr)
    return json.loads(result.stdout)


class Target:
    def __init__(self, entry):
        self.name = entry["name"]
        default = "Tests" if entry["type"] == "test" else "Sources"
        self.path = os.path.join(ROOT, entry.get("path") or os.path.join(default, self.name))
        self.dependencies = []
        for dependency in entry.get("dependencies", []):
            # {"byName": [NAME, condition]}, {"target": [NAME, condition]}, {"product": [...]}
            kind, value = next(iter(dependency.items()))
            if kind == "product":
                self.dependencies.append(("product", value[0]))
            else:
                self.dependencies.append(("target", value[0]))
        self.unsupported = [key for key in ("sources", "resources", "publicHeadersPath") if entry.get(key)]
        # Settings: defines (and C header search paths) for this platform are applied; others stop.
        self.swift_flags, self.c_flags = [], []
        for setting in entry.get("settings") or []:
            condition = setting.get("condition") or {}
            platforms = condition.get("platformNames")
            if condition.get("config"):
                self.unsupported.append(f"{setting['tool']} setting for the {condition['config']} configuration")
                continue
            if platforms and "linux" not in platforms:
                continue  # another platform's setting
            kind, value = next(iter(setting["kind"].items()))
            value = value.get("_0") if isinstance(value, dict) else value
            if kind == "define" and setting["tool"] == "swift":
                self.swift_flags += ["-D", value]
            elif kind == "define" and setting["tool"] in ("c", "cxx"):
                self.c_flags.append("-D" + value)
            elif kind == "headerSearchPath" and setting["tool"] in ("c", "cxx"):
                self.c_flags += ["-I", os.path.join(self.path, value)]
            else:
                self.unsupported.append(f"{setting['tool']} setting {kind}")
        self.unsupported += [f"{key}: {entry[key]}" for key in ("pluginUsages",) if entry.get(key)]
        excluded = [os.path.join(self.path, e) for e in entry.get("exclude", [])]
        self.files = []
        for folder, subfolders, names in os.walk(self.path):
            subfolders[:] = sorted(s for s in subfolders if os.path.join(folder, s) not in excluded)
            self.files += [os.path.join(folder, n) for n in sorted(names)
                           if os.path.join(folder, n) not in excluded]
        self.swift = [f for f in self.files if f.endswith(".swift")]
        self.c = [f for f in self.files if f.endswith(".c")]
        self.include = os.path.join(self.path, "include")
        if self.swift and self.c:
            fail(f"target {self.name} mixes Swift and C files")

    @property
    def is_c(self):
        return bool(self.c) or (os.path.isdir(self.include) and not self.swift)


def imports(entry_files):
    """The modules the entry files import (any attributes, @testable, @_spi, any access level)."""
    found = []
    pattern = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
                         r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)", re.M)
    for path in entry_files:
        with open(path) as f:
            found += pattern.findall(f.read())
    return found


def build_order(targets, roots):
    """`roots` and every target they depend on, each after its dependencies."""
    order, state = [], {}

    def visit(name, chain):
        if state.get(name) == "done":
            return
        if state.get(name) == "visiting":
            fail("dependency cycle: " + " -> ".join(chain + [name]))
        state[name] = "visiting"
        target = targets[name]
        for kind, dependency in target.dependencies:
            if kind == "product" or dependency not in targets:
                fail(f"{name} depends on {dependency}, from another package: not built for fuzzing")
            visit(dependency, chain + [name])
        state[name] = "done"
        order.append(target)

    for name in roots:
        visit(name, [])
    return order


def newest(paths):
    return max((os.path.getmtime(p) for p in paths if os.path.exists(p)), default=0)


def run(command):
    print("+ " + " ".join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a for a in command),
          file=sys.stderr)
    if subprocess.run(command, cwd=ROOT).returncode != 0:
        fail("build failed")


def closure_c_includes(target, targets):
    """-I for the include folders of the C targets `target` reaches (headers include each other)."""
    seen, stack, flags = set(), [target], []
    while stack:
        t = stack.pop()
        for kind, name in t.dependencies:
            if name not in seen:
                seen.add(name)
                stack.append(targets[name])
                if targets[name].is_c:
                    flags += ["-I", targets[name].include]
    return flags


def module_map(target):
    """The module map SwiftPM would use for a C target's include folder."""
    given = os.path.join(target.include, "module.modulemap")
    if os.path.exists(given):
        return given
    folder = os.path.join(MODULES, target.name)
    os.makedirs(folder, exist_ok=True)
    umbrella_header = os.path.join(target.include, target.name + ".h")
    if os.path.exists(umbrella_header):
        text = f'module {target.name} {{\n    umbrella header "{umbrella_header}"\n    export *\n}}\n'
    else:
        text = f'module {target.name} {{\n    umbrella "{target.include}"\n    export *\n}}\n'
    path = os.path.join(folder, "module.modulemap")
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)
    return path


def main():
    args = sys.argv[1:]
    plan_only = bool(args) and args[0] == "--plan"
    if plan_only:
        args = args[1:]
    if len(args) != 1:
        fail("usage: python3 Fuzz/build.py [--plan] NAME")
    name = args[0]
    folder = os.path.join(ROOT, "Fuzz", name)
    entries = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".swift")) \
        if os.path.isdir(folder) else []
    if not entries:
        fail(f"no fuzz target {name}: Fuzz/{name}/ has no .swift file")

    manifest = package()
    targets = {t["name"]: Target(t) for t in manifest["targets"]}
    roots = [m for m in imports(entries) if m in targets]
    order = build_order(targets, roots)
    for target in order:
        if target.unsupported:
            fail(f"target {target.name} uses {', '.join(target.unsupported)} in Package.swift, which "
                 "Fuzz/build.py does not apply yet: teach it before fuzzing this module")
    if plan_only:
        for target in order:
            kind = "C" if target.is_c else "Swift"
            deps = ", ".join(d for _, d in target.dependencies) or "-"
            print(f"{target.name}\t{kind}\t{os.path.relpath(target.path, ROOT)}\t{deps}")
        return

    os.makedirs(MODULES, exist_ok=True)
    package_name = ["-package-name", manifest["name"]]
    script_time = os.path.getmtime(__file__)
    outputs = {}  # target name -> files it produced (objects, archive, module)
    objects, libraries, module_flags = [], [], ["-I", MODULES]
    for target in order:
        deps_time = newest(f for _, d in target.dependencies for f in outputs[d])
        inputs_time = max(newest(target.files), deps_time, script_time)
        if target.is_c:
            module_map(target)
            built = []
            for source in target.c:
                relative = os.path.relpath(source, target.path).replace(os.sep, "_")
                obj = os.path.join(MODULES, target.name, relative[:-2] + ".o")
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                if newest([obj]) < inputs_time:
                    run(["clang", *C_FLAGS, *target.c_flags, "-c", "-I", target.include,
                         *closure_c_includes(target, targets),
                         source, "-o", obj])
                built.append(obj)
            outputs[target.name] = built
            objects += built
            given = os.path.join(target.include, "module.modulemap")
            module_flags += ["-I", target.include if os.path.exists(given) else os.path.join(MODULES, target.name),
                             "-Xcc", "-I", "-Xcc", target.include]
        else:
            archive = os.path.join(MODULES, f"lib{target.name}Fuzz.a")
            module = os.path.join(MODULES, f"{target.name}.swiftmodule")
            if newest([archive]) < inputs_time or not os.path.exists(module):
                if os.path.exists(archive):
                    os.remove(archive)  # swiftc would add to the old archive, not replace it
                run(["swiftc", *SWIFT_FLAGS, *target.swift_flags, *package_name, "-enable-testing",
                     "-module-name", target.name, "-emit-module", "-emit-module-path", module,
                     "-emit-library", "-static", "-o", archive, *module_flags, *target.swift])
            outputs[target.name] = [archive, module]
            libraries.insert(0, f"-l{target.name}Fuzz")  # dependents before their dependencies
    binary = os.path.join(ROOT, "Fuzz", "bin", name)
    if newest([binary]) >= max(newest(entries), newest(f for files in outputs.values() for f in files), script_time):
        return  # up to date
    run(["swiftc", *SWIFT_FLAGS, "-use-ld=lld", *package_name, "-module-name", f"{name}Fuzz",
         *module_flags, *entries, "-L", MODULES, *libraries, *objects, "-o", binary])


if __name__ == "__main__":
    main()
