import sys, os
def hdr(lines, py=False):
    c = '#' if py else '//'
    return ''.join(f'{c} {l}\n' for l in lines)
def write(ex, name, head, body, py=False):
    d=f'review/blind6/{ex}'; os.makedirs(d, exist_ok=True)
    open(f'{d}/{name}','w').write(hdr(head, py)+body)
def rep(src,a,b):
    assert src.count(a)==1, (src.count(a), a[:80])
    return src.replace(a,b)
