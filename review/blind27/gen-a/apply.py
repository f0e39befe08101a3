"""The header of every file of this set, the exact-replacement helper, and
where the files go (review/blind27/<exercise>/)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SET = os.path.dirname(HERE)
WORK = os.path.join(HERE, "work")

# exercise -> the extension of its student file
EXT = {
    "block-pool": "cu",
    "async-pipeline": "cu",
    "pool-reuse": "cu",
    "cross-stream": "cu",
    "strict-pool": "cu",
    "vmm-growable": "cu",
    "pool-resource": "h",
}
ORDER = list(EXT)


def body(exercise):
    """The correct file's body: the student file with its TODOs done."""
    with open(os.path.join(WORK, exercise + "." + EXT[exercise])) as f:
        return f.read()


def header(kind, mistake, why, source):
    for line in (kind, mistake, why, source):
        assert "\n" not in line, line
    return (
        "// kind: %s\n// mistake: %s\n// why it is wrong: %s\n// source: %s\n"
        % (kind, mistake, why, source)
    )


def replace_once(text, old, new, where):
    n = text.count(old)
    if n != 1:
        raise SystemExit("%s: the old text occurs %d times, not once:\n%s" % (where, n, old))
    return text.replace(old, new)


def path(exercise, name):
    return os.path.join(SET, exercise, name + "." + EXT[exercise])
