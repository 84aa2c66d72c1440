"""Sums JUnit reports from every test runner into the closing line `N passed, N failed`.

Exits 1 when a test failed or when no test ran at all, so CI cannot go green on nothing.
Usage: python3 .ci/summarize.py report.xml [report.xml ...]
"""
import sys
import xml.etree.ElementTree as ET

passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as error:
        print(f"cannot read JUnit report {path}: {error}", file=sys.stderr)
        failed += 1
        continue
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1

if passed + failed == 0:
    print("no test ran", file=sys.stderr)
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed or passed == 0 else 0)
