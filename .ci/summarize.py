"""Sums JUnit reports from every test runner into the closing line `N passed, N failed`.

Each failed test is named above that line (report, file, test, the first lines of its message), so
the tail of a CI log says which test failed.

Exits 1 when a test failed or when no test ran at all, so CI cannot go green on nothing.
Usage: python3 .ci/summarize.py report.xml [report.xml ...]
"""
import sys
import xml.etree.ElementTree as ET

passed = failed = skipped = 0
failures = []
for path in sys.argv[1:]:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as error:
        failed += 1
        failures.append(f"{path}: unreadable report ({error})")
        continue
    for case in root.iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is not None:
            failed += 1
            where = case.get("classname") or case.get("file") or ""
            message = (problem.get("message") or problem.text or "").strip().splitlines()[:6]
            failures.append(f"{path}: {where} > {case.get('name')}\n    " + "\n    ".join(message))
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1

for failure in failures:
    print("FAILED " + failure)
if passed + failed == 0:
    print("no test ran", file=sys.stderr)
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed or passed == 0 else 0)
