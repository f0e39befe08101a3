"""Helpers of blind27's second half (B): the four-line header and the
exact-replacement edit that every wrong file is made with."""

EXT = {
    "stream-pools": "cu",
    "stream-ordered-pool": "h",
    "ipc-pool": "cu",
    "graph-alloc": "cu",
    "peer-pool": "cu",
    "heap-vs-pool": "cu",
    "python-handoff": "py",
}
EXERCISES = list(EXT)


def header(ext, kind, mistake, why, source):
    """The four lines every file opens with: // for CUDA, # for Python."""
    c = "#" if ext == "py" else "//"
    lines = [f"{c} kind: {kind}", f"{c} mistake: {mistake}", f"{c} why it is wrong: {why}", f"{c} source: {source}"]
    for line in lines:
        assert "\n" not in line, line
    return "\n".join(lines) + "\n"


def apply(body, edits, what):
    """Each edit (old, new) replaces text that occurs exactly once in body."""
    for old, new in edits:
        n = body.count(old)
        if n != 1:
            raise SystemExit(f"{what}: the edit's old text occurs {n} times:\n{old}")
        body = body.replace(old, new)
    return body
