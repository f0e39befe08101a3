# The lessons Python driver: runs a lesson's Python cells, in order, in one
# namespace, the way a notebook kernel would, with plain python3 and no
# IPython. It reads one JSON request a line on stdin ({"n": N, "code": ...})
# and writes the cell's output to stdout and stderr as it comes; after each
# cell, and for each figure or value shown, it writes a frame on stdout:
# "\x1e" NONCE JSON "\n", which the Go side takes out of the stream.
import ast, base64, io, json, os, re, shlex, signal, subprocess, sys, traceback

NONCE = os.environ.get("LESSONS_PY_NONCE", "")
_out = sys.stdout
ns = {"__name__": "__main__", "__builtins__": __builtins__}


def frame(obj):
    flush()
    _out.write("\x1e" + NONCE + json.dumps(obj) + "\n")
    _out.flush()


def flush():
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            pass
    try:  # what C code printed (a CUDA kernel's printf, say) comes first
        import ctypes
        ctypes.CDLL(None).fflush(None)
    except Exception:
        pass


def sh(cmd, capture=False):
    """A ! line: run through the shell, as IPython's system() does."""
    flush()
    cmd = expand(cmd, sys._getframe(1))
    if capture:
        r = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, executable="/bin/bash" if os.path.exists("/bin/bash") else None)
        return r.stdout.splitlines()
    r = subprocess.run(cmd, shell=True, executable="/bin/bash" if os.path.exists("/bin/bash") else None)
    ns["_exit_code"] = r.returncode
    if r.returncode != 0:
        # IPython goes on after a failing ! line; the cell is marked all the same
        failed_lines.append((cmd, r.returncode))
    return None


failed_lines = []


class _Unexpanded(Exception):
    pass


def expand(cmd, fr):
    """{expr} and $name in a ! line, from the cell's namespace, as IPython's
    var_expand does: all of them, or, where one does not evaluate (a
    shell's $HOME, bash's {a,b}), none, the line left to the shell."""
    scope = dict(ns)
    if fr is not None:
        scope.update(fr.f_locals)

    def brace(m):
        try:
            return str(eval(m.group(1), ns, scope))
        except Exception:
            raise _Unexpanded()

    def dollar(m):
        if m.group(1) in scope:
            return str(scope[m.group(1)])
        raise _Unexpanded()

    try:
        out = re.sub(r"(?<!\{)\{([^{}]+)\}(?!\})", brace, cmd)
        return re.sub(r"(?<!\$)\$([A-Za-z_][A-Za-z0-9_]*)", dollar, out)
    except _Unexpanded:
        return cmd


def magic(line):
    """A % line: the few that mean something without IPython."""
    name, _, arg = line.partition(" ")
    arg = arg.strip()
    if name in ("matplotlib", "config", "load_ext", "reload_ext", "autoreload"):
        return
    if name == "cd":
        os.chdir(os.path.expanduser(arg or "~"))
        print(os.getcwd())
        return
    if name == "env" and "=" in arg:
        k, _, v = arg.replace(" ", "", 1).partition("=")
        os.environ[k.strip()] = v.strip()
        return
    if name in ("pip", "conda"):
        return sh(shlex.quote(sys.executable) + " -m pip " + arg if name == "pip" else "conda " + arg)
    if name == "pwd":
        return os.getcwd()
    if name == "timeit":
        return timeit(arg)
    if name == "time":
        return timed(arg)
    raise NotAvailable("%" + name)


def _format_time(t):
    """A time as IPython's %timeit writes it: 3 significant digits and a unit."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("\u00b5s", 1e-6), ("ns", 1e-9)):
        if t >= scale or unit == "ns":
            return "%.3g %s" % (t / scale, unit)


_TIMEIT_OPT = re.compile(r"^\s*-([nrp])\s*(\d+)|^\s*-([qotc])\b")


def timeit(arg, body=None):
    """%timeit STMT and %%timeit [SETUP] + BODY, as IPython runs them: the
    statement in the cell's namespace, 7 runs of as many loops as take
    0.2 s (or -n and -r), the mean and deviation of one loop."""
    import timeit as _timeit, statistics
    number, repeat, quiet, keep = 0, 7, False, False
    while True:
        m = _TIMEIT_OPT.match(arg)
        if not m:
            break
        if m.group(1) == "n":
            number = int(m.group(2))
        elif m.group(1) == "r":
            repeat = max(1, int(m.group(2)))
        elif m.group(3) == "q":
            quiet = True
        elif m.group(3) == "o":
            keep = True
        arg = arg[m.end():]
    stmt, setup = arg.strip() or "pass", "pass"
    if body is not None:
        stmt, setup = transform(body), transform(arg.strip()) or "pass"
    t = _timeit.Timer(stmt, setup, globals=ns)
    if number == 0:
        number = 1
        while True:  # 1, 10, 100, ... loops until a run takes 0.2 s, as IPython does
            if t.timeit(number) >= 0.2 or number >= 10 ** 9:
                break
            number *= 10
    per = [r / number for r in t.repeat(repeat=repeat, number=number)]
    mean = statistics.mean(per)
    dev = statistics.stdev(per) if len(per) > 1 else 0.0
    if not quiet:
        print("%s \u00b1 %s per loop (mean \u00b1 std. dev. of %d run%s, %s loop%s each)" % (
            _format_time(mean), _format_time(dev), repeat, "" if repeat == 1 else "s",
            "{:,}".format(number), "" if number == 1 else "s"))
    if keep:
        return per


class _Clock:
    """The CPU and wall time of what runs inside it, said as IPython's
    %time says them."""

    @staticmethod
    def _cpu():
        # getrusage counts in microseconds (os.times in 10 ms ticks, which
        # said 0 ns for a CuPy cell on the H100)
        try:
            import resource
            r = resource.getrusage(resource.RUSAGE_SELF)
            return r.ru_utime, r.ru_stime
        except Exception:
            t = os.times()
            return t.user, t.system

    def __enter__(self):
        import time
        self.cpu, self.wall = self._cpu(), time.time()
        return self

    def __exit__(self, *exc):
        import time
        wall, cpu = time.time() - self.wall, self._cpu()
        user, sys_ = cpu[0] - self.cpu[0], cpu[1] - self.cpu[1]
        print("CPU times: user %s, sys: %s, total: %s\nWall time: %s" % (
            _format_time(user), _format_time(sys_), _format_time(user + sys_), _format_time(wall)))
        return False


def timed(arg):
    """%time STMT: the statement run once, its times said."""
    with _Clock():
        try:
            code = compile(arg, "<timed>", "eval")
        except SyntaxError:
            exec(compile(arg, "<timed>", "exec"), ns)
            return None
        return eval(code, ns)


class NotAvailable(Exception):
    pass


_BANG = re.compile(r"^(\s*)(?:([A-Za-z_][\w, ]*?)\s*=\s*)?!!?(.*)$")
_MAGIC = re.compile(r"^(\s*)(?:([A-Za-z_][\w, ]*?)\s*=\s*)?%(?!%)(.*)$")


def transform(src):
    """IPython's ! and % lines made Python: sh(...) and magic(...) calls."""
    out, lines, i = [], src.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        m = _BANG.match(line)
        if m and not line.lstrip().startswith("!=") :
            indent, target, cmd = m.groups()
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + lines[i]
            if target:
                out.append("%s%s = __lessons_sh__(%r, True)" % (indent, target, cmd))
            else:
                out.append("%s__lessons_sh__(%r)" % (indent, cmd))
        else:
            m = _MAGIC.match(line)
            if m:
                target = m.group(2) + " = " if m.group(2) else ""
                out.append("%s%s__lessons_magic__(%r)" % (m.group(1), target, m.group(3)))
            else:
                out.append(line)
        i += 1
    return "\n".join(out)


# IPython's script magics: the cell is the program's input
_SCRIPTS = ("script", "python", "python2", "python3", "pypy", "perl", "ruby", "bash", "sh")


def script(line, body):
    """%%script PROGRAM (or %%python3, %%perl, ...): the cell fed to the
    program on its standard input, as IPython does, its output as it comes."""
    argv = shlex.split(line)
    if argv[0] == "script":
        argv = argv[1:]
    raise_error = "--no-raise-error" not in argv
    argv = [a for a in argv if a != "--no-raise-error"]
    if not argv or argv[0].startswith("--"):
        raise NotAvailable("%%script " + " ".join(argv))
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable  # the notebook's own Python, as its kernel's would be
    flush()
    try:
        r = subprocess.run(argv, input=body.encode())
    except OSError as e:
        print("%%script: %s: %s" % (argv[0], e.strerror), file=sys.stderr)
        failed_lines.append((" ".join(argv), 127))
        return
    if r.returncode != 0 and raise_error:
        failed_lines.append((" ".join(argv), r.returncode))


def show_figures():
    """Every open matplotlib figure, as PNG, as the inline backend shows them."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    for num in plt.get_fignums():
        buf = io.BytesIO()
        try:
            plt.figure(num).savefig(buf, format="png", bbox_inches="tight")
        except Exception as e:
            print("(the figure could not be drawn: %s)" % e, file=sys.stderr)
            continue
        frame({"display": {"image/png": base64.b64encode(buf.getvalue()).decode(), "text/plain": "<Figure %d>" % num}})
    plt.close("all")


def display(*objs, **kw):
    for o in objs:
        png = getattr(o, "_repr_png_", None)
        data = {"text/plain": repr(o)}
        if png is not None:
            try:
                b = png()
                if b:
                    data["image/png"] = base64.b64encode(b).decode()
            except Exception:
                pass
        if "image/png" not in data:
            print(repr(o))
            continue
        frame({"display": data})


def run(n, code):
    del failed_lines[:]
    cell_magic = None
    if code.startswith("%%"):
        first, _, code = code.partition("\n")
        cell_magic = first[2:].split()[0] if first[2:].split() else ""
        if cell_magic in _SCRIPTS:
            return script(first[2:], code)
        if cell_magic not in ("time", "capture", "timeit"):
            raise NotAvailable("%%" + cell_magic)
        if cell_magic == "timeit":
            timeit(first[2:].partition("timeit")[2], code)
            return
    src = transform(code)
    name = "<cell [%d]>" % n
    import linecache
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    tree = ast.parse(src, name)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    import contextlib
    saved = sys.stdout
    if cell_magic == "capture":
        sys.stdout = io.StringIO()
    try:
        with _Clock() if cell_magic == "time" else contextlib.nullcontext():
            exec(compile(tree, name, "exec"), ns)
            value = eval(compile(last, name, "eval"), ns) if last is not None else None
        if value is not None:
            ns["_"] = value
            display_result(value)
    finally:
        sys.stdout = saved
    show_figures()


def display_result(value):
    png = getattr(value, "_repr_png_", None)
    if png is not None and not isinstance(value, type):
        try:
            b = png()
            if b:
                frame({"result": {"image/png": base64.b64encode(b).decode(), "text/plain": repr(value)}})
                return
        except Exception:
            pass
    text = repr(value)
    print(text)
    frame({"result": {"text/plain": text}})


def main():
    ns["__lessons_sh__"] = sh
    ns["__lessons_magic__"] = magic
    # what IPython's var_expand does, for the ! and %%cuda cells lessons runs itself
    ns["__lessons_expand__"] = lambda cmd: expand(cmd, None)
    ns["display"] = display
    os.environ.setdefault("MPLBACKEND", "Agg")
    signal.signal(signal.SIGINT, signal.default_int_handler)
    frame({"ready": sys.version.split()[0]})
    requests = os.fdopen(int(os.environ.get("LESSONS_PY_FD", "0")), "r")
    for line in requests:
        try:
            req = json.loads(line)
        except ValueError:
            continue
        n = req.get("n", 0)
        status = {"done": n, "ok": True}
        try:
            run(n, req.get("code", ""))
            if failed_lines:
                cmd, rc = failed_lines[-1]
                status.update(ok=False, ename="ShellError", evalue="!%s exited with status %d" % (cmd, rc))
        except KeyboardInterrupt:
            flush()
            print("KeyboardInterrupt", file=sys.stderr)
            status.update(ok=False, ename="KeyboardInterrupt", evalue="interrupted")
        except NotAvailable as e:
            msg = "%s needs IPython: this is Python %s with no Jupyter kernel, where IPython's magics are not available" % (e, sys.version.split()[0])
            print("UsageError: " + msg, file=sys.stderr)
            status.update(ok=False, ename="UsageError", evalue=msg)
        except BaseException as e:
            if isinstance(e, SystemExit) and not e.code:
                pass
            else:
                tb = traceback.format_exception(type(e), e, e.__traceback__)
                # the driver's own frames are not the lesson's
                tb = [t for t in tb if "lessons_driver.py" not in t and "<string>" not in t]
                sys.stderr.write("".join(tb))
                status.update(ok=False, ename=type(e).__name__, evalue=str(e))
        frame(status)


if __name__ == "__main__":
    main()
