"""Checks notebooks written by `lessons export --ipynb` with Jupyter's own tools.

Every notebook given is validated against nbformat's official JSON schema.
Those written by lessons (their first cell is the generated setup cell) are
also run top to bottom by a real Jupyter kernel (nbclient, what
`jupyter nbconvert --execute` uses), each in a folder of its own, on a
machine without a GPU: the cells that need none must work. No cell may
raise; every %%writefile cell must write its file; every nvcc build
(compiling needs no GPU) must leave its program. Running the programs
needs a GPU: their ! cells print the CUDA error, which does not fail a
notebook, and which is not checked here.
"""
import os
import re
import sys
import tempfile

import nbformat
from nbclient import NotebookClient

failures = []
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as e:
        failures.append(f"{path}: not a valid nbformat 4 notebook: {e.message}")
        continue
    first = nb.cells[0] if nb.cells else None
    if not first or first.metadata.get("lessons", {}).get("generated") != "setup":
        print(f"valid: {path}")
        continue
    with tempfile.TemporaryDirectory() as work:
        client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": work}})
        try:
            client.execute()
        except Exception as e:  # a cell raised: the notebook does not run
            failures.append(f"{path}: a cell failed under Jupyter: {str(e).splitlines()[-1] if str(e) else e}")
            continue
        wrote = built = 0
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    failures.append(f"{path}: cell {i + 1} raised {out.get('ename')}: {out.get('evalue')}")
            src = cell.source
            m = re.match(r"%%writefile (?:-a )?(\S+)", src)
            if m:
                wrote += 1
                if not os.path.exists(os.path.join(work, m.group(1))):
                    failures.append(f"{path}: cell {i + 1} did not write {m.group(1)}")
            m = re.match(r"!nvcc .*?-o (\S+)", src)
            if m:
                built += 1
                if not os.path.exists(os.path.join(work, m.group(1))):
                    text = "".join(o.get("text", "") for o in cell.get("outputs", []))
                    failures.append(f"{path}: cell {i + 1} did not build {m.group(1)}:\n{text}")
        print(f"valid, ran under Jupyter: {path} ({len(nb.cells)} cells, {wrote} files written, {built} builds)")

for f in failures:
    print("FAIL", f, file=sys.stderr)
sys.exit(1 if failures else 0)
