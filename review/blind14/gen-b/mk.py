"""Writes a wrong file from its folder's correct file: a new header and
exact replacements (each must match once). Used while writing the set."""
import sys, re
def make(folder, slug, ext, kind, mistake, why, source, subs, cmt='//'):
    src = open(f'{folder}/correct.{ext}').read()
    lines = src.split('\n')
    body = '\n'.join(lines[4:])
    for old, new in subs:
        n = body.count(old)
        if n != 1:
            raise SystemExit(f'{slug}: {n} matches for {old!r}')
        body = body.replace(old, new)
    hdr = [f'{cmt} kind: {kind}', f'{cmt} mistake: {mistake}', f'{cmt} why it is wrong: {why}', f'{cmt} source: {source}']
    open(f'{folder}/wrong-{slug}.{ext}', 'w').write('\n'.join(hdr) + '\n' + body)
