#!/usr/bin/env python3
"""Checks the code's shape, as CONVENTIONS.md and docs/ARCHITECTURE.md state it.

  check_code_shape.py includes ROOT   every #include allowed by tests/architecture/include_rules.txt
  check_code_shape.py sizes ROOT      no source file over 600 lines, no function over 80 lines
  check_code_shape.py format ROOT     every source file as clang-format (.clang-format) writes it
  check_code_shape.py image ROOT      every module the build adds is in the container image's sources

Each prints every violation, one a line, and exits 1 when there is any.
"""
import os
import re
import subprocess
import sys

MODULES = ["model", "expressions", "partiql", "wire", "objects", "portability", "policies", "replication", "storage", "vector", "index", "streams", "kinesis", "triggers", "ttl",
           "transactions", "backups", "faults", "capacity", "insight", "console",
           "server"]
CHECKED = MODULES + ["tests", "bench"]
THIRD_PARTY = ("rocksdb/", "hnswlib/", "boost/", "simdjson", "zlib.h", "openssl/", "xxhash.h",
               "gtest/", "gmock/", "benchmark/")
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80


def sources(root, folders):
    for folder in folders:
        for directory, _, files in os.walk(os.path.join(root, folder)):
            if "node_modules" in directory:
                continue
            for name in sorted(files):
                if name.endswith((".cc", ".h")):
                    yield os.path.join(directory, name)


def module_of(root, path):
    return os.path.relpath(path, root).split(os.sep)[0]


def read_rules(root):
    rules = {}
    with open(os.path.join(root, "tests", "architecture", "include_rules.txt")) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            module, allowed = line.split(":", 1)
            rules[module.strip()] = allowed.split()
    return rules


def check_includes(root):
    rules = read_rules(root)
    problems = []
    include = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
    for path in sources(root, MODULES):
        module = module_of(root, path)
        allowed = rules.get(module)
        if allowed is None:
            problems.append(f"{path}: module {module} has no line in include_rules.txt")
            continue
        with open(path) as f:
            for number, line in enumerate(f, 1):
                match = include.match(line)
                if not match:
                    continue
                kind, target = match.groups()
                where = f"{os.path.relpath(path, root)}:{number}"
                if kind == "<":
                    if target.startswith(THIRD_PARTY) and not any(
                            a.startswith("<") and target.startswith(a[1:].rstrip(">"))
                            for a in allowed):
                        problems.append(f"{where}: {module}/ may not include <{target}>")
                    continue
                target_module = target.split("/")[0]
                if target_module not in allowed:
                    problems.append(f"{where}: {module}/ may not include {target}")
                elif target.startswith("storage/internal/") and module != "storage":
                    problems.append(f"{where}: storage/internal/ is private to storage/")
    return problems


def strip_comments_and_strings(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif text.startswith('R"', i):
            delimiter_end = text.find("(", i)
            delimiter = text[i + 2:delimiter_end]
            end = text.find(")" + delimiter + '"', delimiter_end)
            end = n if end < 0 else end + len(delimiter) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif text[i] in "\"'":
            quote = text[i]
            j = i + 1
            while j < n and text[j] != quote:
                j += 2 if text[j] == "\\" else 1
            out.append(quote + quote)
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def function_lengths(text):
    """(first line, line count, head) of each function body at namespace or class scope."""
    code = strip_comments_and_strings(text)
    found = []
    stack = []  # "scope" (namespace, class, initializer) or (line of "{", head) for functions
    head = []
    line = 1
    for char in code:
        if char == "\n":
            line += 1
            head.append(" ")
        elif char == "{":
            words = " ".join("".join(head).split())
            in_function = any(isinstance(entry, tuple) for entry in stack)
            if in_function:
                stack.append("block")
            elif re.search(r"\b(namespace|class|struct|union|enum)\b", words.split("(")[0]) or \
                    words.startswith("extern") or ")" not in words or words.rstrip().endswith("="):
                stack.append("scope")
            else:
                stack.append((line, words))
            head = []
        elif char == "}":
            entry = stack.pop() if stack else "scope"
            if isinstance(entry, tuple):
                found.append((entry[0], line - entry[0] + 1, entry[1]))
            head = []
        elif char == ";" and not any(isinstance(entry, tuple) for entry in stack):
            head = []
        else:
            head.append(char)
    return found


def check_sizes(root):
    problems = []
    for path in sources(root, MODULES):
        with open(path) as f:
            text = f.read()
        relative = os.path.relpath(path, root)
        lines = text.count("\n")
        if lines > MAX_FILE_LINES:
            problems.append(f"{relative}: {lines} lines (at most {MAX_FILE_LINES})")
        for first, count, head in function_lengths(text):
            if count > MAX_FUNCTION_LINES:
                name = head.split("(")[0].split()[-1] if "(" in head else head[:60]
                problems.append(f"{relative}:{first}: function {name} has {count} lines "
                                f"(at most {MAX_FUNCTION_LINES})")
    return problems


def check_format(root):
    problems = []
    for path in sources(root, CHECKED):
        result = subprocess.run(["clang-format", "--dry-run", "--Werror", path],
                                capture_output=True, text=True)
        if result.returncode != 0:
            problems.append(f"{os.path.relpath(path, root)}: not as clang-format writes it")
    return problems


def check_image(root):
    """The container image compiles every module the build adds: each add_subdirectory of the
    root CMakeLists.txt (but tests) is a module here, copied by docker/Dockerfile and let through
    by .dockerignore."""
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        built = [name for name in re.findall(r"^add_subdirectory\((\w+)\)", f.read(), re.M)
                 if name != "tests"]
    with open(os.path.join(root, "docker", "Dockerfile")) as f:
        copied = re.findall(r"^COPY (\w+) \1$", f.read(), re.M)
    with open(os.path.join(root, ".dockerignore")) as f:
        let_through = re.findall(r"^!(\w+)/$", f.read(), re.M)
    problems = [f"CMakeLists.txt adds {name}, which MODULES does not list"
                for name in built if name not in MODULES]
    problems += [f"docker/Dockerfile does not COPY {name}" for name in built if name not in copied]
    problems += [f".dockerignore keeps {name}/ out of the image's build context"
                 for name in built if name not in let_through]
    return problems


def main():
    checks = {"includes": check_includes, "sizes": check_sizes, "format": check_format,
              "image": check_image}
    if len(sys.argv) != 3 or sys.argv[1] not in checks:
        print(__doc__, file=sys.stderr)
        return 2
    check = checks
    problems = check[sys.argv[1]](sys.argv[2])
    for problem in problems:
        print(problem)
    print(f"{sys.argv[1]}: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
