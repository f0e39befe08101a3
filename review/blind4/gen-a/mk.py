# mk.py: the fourth blind set's generator helpers (part A).
# A correct file is the student file with its TODO regions replaced; a
# wrong file is the correct file with a few exact edits. Every edit must
# match exactly once, or the generator stops: when a student file
# changes, the generator says which edit no longer fits.
import os, re, sys, textwrap

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))


def sub(text, pairs, what):
    for old, new in pairs:
        n = text.count(old)
        if n != 1:
            sys.exit("%s: edit matches %d times, not once: %r" % (what, n, old[:100]))
        text = text.replace(old, new)
    return text


def header(fields):
    out = []
    for key in ('kind', 'mistake', 'why it is wrong', 'source'):
        val = ' '.join(fields[key].split())
        lines = textwrap.wrap('%s: %s' % (key, val), 76, subsequent_indent='  ')
        out += ['// ' + l for l in lines]
    return '\n'.join(out) + '\n'


def build(exercise, student, correct_fields, correct_edits, wrongs):
    """wrongs: list of (slug, fields, edits applied to the correct body)."""
    src = open(os.path.join(ROOT, student)).read()
    d = os.path.join(HERE, exercise)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.endswith('.cu'):
            os.remove(os.path.join(d, f))
    body = sub(src, correct_edits, exercise + '/correct.cu')
    # The TODO comments stay as plain comments: what each part does.
    body = re.sub(r'// TODO \d+: ', '// ', body)
    if 'TODO' in body:
        sys.exit('%s/correct.cu still holds a TODO' % exercise)
    open(os.path.join(d, 'correct.cu'), 'w').write(header(correct_fields) + body)
    rows = [('correct.cu', correct_fields)]
    for slug, fields, edits in wrongs:
        name = 'wrong-%s.cu' % slug
        wb = sub(body, edits, exercise + '/' + name)
        if wb == body:
            sys.exit('%s/%s changes nothing' % (exercise, name))
        open(os.path.join(d, name), 'w').write(header(fields) + wb)
        rows.append((name, fields))
    lines = ['# %s: fourth blind set, part A (issue 36)' % exercise, '',
             'Written from the lesson, the student file, course.toml\'s hints and public sources only.',
             'One line a file: kind; mistake; source.', '']
    for name, f in rows:
        lines.append('- `%s`: %s. %s Source: %s' % (name, ' '.join(f['kind'].split()),
                     ' '.join(f['mistake'].split()), ' '.join(f['source'].split())))
    open(os.path.join(d, 'MANIFEST.md'), 'w').write('\n'.join(lines) + '\n')
    print('%s: correct.cu and %d wrong files' % (exercise, len(wrongs)))
