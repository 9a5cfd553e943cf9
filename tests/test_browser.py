"""Pages we ship, opened in headless Chromium: the HTML report (``sskernels report``) and the
main pages of the documentation site.

Each page is loaded in a fresh tab driven over the DevTools protocol (Chromium's
``--remote-debugging-pipe``: JSON messages on two pipes, no dependency beyond the standard
library).  On every page: no console error and no uncaught exception, every image decoded
(``complete`` with a natural width), and no request leaving the machine — every http(s) and
ws(s) request is blocked, and any attempted one is reported.  A screenshot of each page is
kept under ``build/screenshots/`` (CI's artifacts).

* :func:`test_report_in_chromium`: a report of a run folder with a user's row (fast);
* :func:`test_committed_tables_report_in_chromium`: the report of ``results/liu2009``;
* :func:`test_wheel_run_and_report_in_chromium` (the acceptance of issue #48): the wheel
  installed in a fresh venv, ``sskernels run liu2009/table3 --with Mine=myssl:LabeledKNN
  --splits 2`` and ``sskernels report`` from an empty folder; the user's row and its rank are
  found in the page's DOM and agree with the leaderboard computed in this process (the
  wheel and that run are tests/test_installed_wheel.py's, made once per test session);
* :func:`test_docs_pages_in_chromium`: the built documentation (``make docs``).

They skip, saying why, where Chromium is not installed (``apt-get install chromium``), unless
``SSKERNELS_REQUIRE_BROWSER=1`` (then a missing Chromium fails).  The docs' pages are checked
on request only, since a build left in ``docs/_build`` may be older than the sources:
``SSKERNELS_REQUIRE_DOCS=1`` (after ``make docs``; a page not built fails) or
``SSKERNELS_DOCS_HTML=FOLDER`` (another build).  CI's full stage installs Chromium, runs the
suite with the first, builds the docs, then runs the docs' checks with both.
"""

import base64
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import REPO, require_data

# the wheel of this tree in a fresh venv (made once per test session)
from test_installed_wheel import wheel_venv  # noqa: F401 - a fixture

CHROMIUM = next(
    (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p),
    None,
)
REQUIRED = os.environ.get("SSKERNELS_REQUIRE_BROWSER") == "1"
DOCS_REQUIRED = os.environ.get("SSKERNELS_REQUIRE_DOCS") == "1"
SCREENSHOTS = REPO / "build" / "screenshots"
#: the built site (``make docs``'s output; SSKERNELS_DOCS_HTML names another build)
DOCS = Path(os.environ.get("SSKERNELS_DOCS_HTML") or REPO / "docs" / "_build" / "html")
#: the schemes a page may load (everything else would leave the machine)
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:", "chrome:", "devtools:")
BLOCKED = ["http://*", "https://*", "ws://*", "wss://*", "ftp://*"]


def _missing(reason, required=REQUIRED, flag="SSKERNELS_REQUIRE_BROWSER"):
    if required:
        pytest.fail(f"{reason} ({flag}=1)")
    pytest.skip(reason)


class Browser:
    """Headless Chromium over the DevTools protocol on a pipe pair."""

    def __init__(self, profile):
        cmd_r, self._cmd_w = os.pipe()  # our commands: Chromium's fd 3
        self._res_r, res_w = os.pipe()  # its answers and events: its fd 4
        # the child's ends above 9, so that the redirections to 3 and 4 cannot overwrite them
        cmd_r, res_w = (self._high(fd) for fd in (cmd_r, res_w))
        args = [
            "--headless=new",
            "--remote-debugging-pipe",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--mute-audio",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(0, "--no-sandbox")  # Chromium refuses its sandbox as root
        self.proc = subprocess.Popen(
            [
                shutil.which("bash") or "/bin/bash",
                "-c",  # (dash: no fd above 9)
                f'exec "$0" "$@" 3<&{cmd_r} 4>&{res_w}',
                CHROMIUM,
                *args,
            ],
            pass_fds=(cmd_r, res_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(cmd_r)
        os.close(res_w)
        self._next = 0
        self._replies, self.events = {}, []
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    @staticmethod
    def _high(fd):
        import fcntl

        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(fd)
        return high

    def _read(self):
        buf = b""
        while True:
            chunk = os.read(self._res_r, 1 << 16)
            if not chunk:
                break
            buf += chunk
            *messages, buf = buf.split(b"\0")
            with self._cond:
                for m in messages:
                    msg = json.loads(m)
                    if "id" in msg:
                        self._replies[msg["id"]] = msg
                    else:
                        self.events.append(msg)
                self._cond.notify_all()
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def send(self, method, params=None, session=None, timeout=60):
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        with self._cond:
            if not self._cond.wait_for(
                lambda: msg["id"] in self._replies or getattr(self, "_closed", False), timeout
            ):
                raise TimeoutError(f"Chromium did not answer {method} in {timeout} s")
            reply = self._replies.pop(msg["id"], None)
        if reply is None:
            raise RuntimeError(f"Chromium exited during {method}")
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method, session, since, timeout=60):
        with self._cond:
            ok = self._cond.wait_for(
                lambda: any(
                    e["method"] == method and e.get("sessionId") == session
                    for e in self.events[since:]
                ),
                timeout,
            )
        if not ok:
            raise TimeoutError(f"no {method} in {timeout} s")

    def open(self, url, width=1400, height=900):
        """A new tab at ``url`` in a fresh browser context (no storage, cache or cookie from
        another page: what a first visit sees), loaded (load event, then no new request for
        0.5 s)."""
        context = self.send("Target.createBrowserContext")["browserContextId"]
        target = self.send(
            "Target.createTarget", {"url": "about:blank", "browserContextId": context}
        )["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for method in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            self.send(method, session=session)
        self.send("Network.setBlockedURLs", {"urls": BLOCKED}, session)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        since = len(self.events)
        self.send("Page.navigate", {"url": url}, session)
        self.wait_event("Page.loadEventFired", session, since)
        page = Page(self, session, target, since)
        page.settle()
        return page

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._cmd_w, self._res_r):
            try:
                os.close(fd)
            except OSError:
                pass


class Page:
    """One loaded tab: its events, JavaScript evaluation, images, screenshot."""

    def __init__(self, browser, session, target, since):
        self.b, self.session, self.target, self.since = browser, session, target, since

    def events(self, method=None):
        with self.b._cond:
            ev = list(self.b.events[self.since :])
        return [
            e
            for e in ev
            if e.get("sessionId") == self.session and (method is None or e["method"] == method)
        ]

    def settle(self, quiet=0.5, limit=10.0):
        """Wait until no request has started for ``quiet`` seconds (at most ``limit``)."""
        end, seen, last = time.monotonic() + limit, -1, time.monotonic()
        while time.monotonic() < end:
            n = len(self.events("Network.requestWillBeSent"))
            if n != seen:
                seen, last = n, time.monotonic()
            elif time.monotonic() - last >= quiet:
                return
            time.sleep(0.05)

    def evaluate(self, expression):
        res = self.b.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            self.session,
        )
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expression[:80]}: {res['exceptionDetails']}")
        return res["result"].get("value")

    def console_errors(self):
        out = []
        for e in self.events():
            p = e["params"]
            if e["method"] == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
                out.append(
                    " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])
                )
            elif e["method"] == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append(d.get("exception", {}).get("description") or d.get("text"))
            elif e["method"] == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append(f"{p['entry']['text']} {p['entry'].get('url', '')}".strip())
        return out

    def external_requests(self):
        """The addresses off the machine the page asked for: every request seen (blocked
        or not), and every resource its DOM names (scripts, style sheets, images, frames,
        media; a link one follows is not a request)."""
        urls = [e["params"]["request"]["url"] for e in self.events("Network.requestWillBeSent")]
        urls += self.evaluate("""Array.from(document.querySelectorAll(
                "script[src], img[src], iframe[src], embed[src], source[src], video[src], "
                + "audio[src], object[data], link[href]"))
            .filter(e => e.tagName !== "LINK" || /stylesheet|preload|icon|manifest/
                     .test(e.getAttribute("rel") || ""))
            .map(e => e.src || e.data || e.href)""")
        return sorted({u for u in urls if u and not u.startswith(LOCAL_SCHEMES)})

    def images(self):
        """``(decoded, broken)``: every ``<img>`` loaded eagerly and decoded; the sources of
        those that did not render."""
        return self.evaluate("""(async () => {
            const imgs = Array.from(document.images);
            imgs.forEach(i => { i.loading = "eager"; });
            await Promise.all(imgs.map(i => i.decode().catch(() => null)));
            const bad = imgs.filter(i => !(i.complete && i.naturalWidth > 0));
            return [imgs.length - bad.length,
                    bad.map(i => (i.currentSrc || i.src || i.outerHTML).slice(0, 160))];
        })()""")

    def screenshot(self, path, max_height=14000):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        size = self.b.send("Page.getLayoutMetrics", session=self.session)["cssContentSize"]
        width = int(size["width"]) or 1400
        height = max(1, min(int(size["height"]), max_height))
        self.b.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            self.session,
        )
        shot = self.b.send("Page.captureScreenshot", {"format": "png"}, self.session)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        _missing("headless Chromium is not installed (Debian: apt-get install chromium)")
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    try:
        b.send("Browser.getVersion", timeout=60)
    except (RuntimeError, TimeoutError) as exc:
        b.close()
        _missing(f"{CHROMIUM} does not start headless: {exc}")
    yield b
    b.close()


def check_page(page, min_images=0):
    """The shared checks: no console error, every image rendered, nothing off the machine.
    Returns the number of images."""
    assert page.console_errors() == []
    assert page.external_requests() == []
    decoded, broken = page.images()
    assert broken == []
    assert decoded >= min_images
    return decoded


USER_ROW_JS = """(() => {
    const row = document.querySelector('table.leaderboard tr.user[data-method="%s"]');
    if (!row) { return null; }
    const cells = Array.from(row.querySelectorAll("td")).map(td => td.textContent.trim());
    const results = Array.from(document.querySelectorAll("table.results td.user"))
        .filter(td => td.textContent.includes("%s")).length;
    const glance = Array.from(document.querySelectorAll("table.glance td.user"))
        .filter(td => td.textContent.includes("%s") && td.getBoundingClientRect().height > 0)
        .length;
    return {position: row.dataset.position, rank: row.dataset.rank, cells: cells,
            results: results, glance: glance,
            visible: row.getBoundingClientRect().height > 0};
})()"""


def test_report_in_chromium(browser, tmp_path):
    from test_report import run_folder

    from sskernels.report import write_report

    run_folder(tmp_path)
    out = write_report([tmp_path], tmp_path / "report.html")
    page = browser.open(out.as_uri())
    check_page(page, min_images=1)
    row = page.evaluate(USER_ROW_JS % ("Mine", "Mine", "Mine"))
    assert row is not None
    assert (row["position"], row["rank"], row["visible"]) == ("3", "3.00", True)
    assert row["cells"][:3] == ["3", "Mine yours", "3.00"] and row["results"] >= 1
    assert row["glance"] == 1  # its name cell in the table at a glance
    page.screenshot(SCREENSHOTS / "report_run_folder.png")


def test_committed_tables_report_in_chromium(browser, tmp_path):
    from sskernels.report import write_report

    out = write_report([REPO / "results" / "liu2009"], tmp_path / "liu2009.html")
    page = browser.open(out.as_uri())
    n = check_page(page, min_images=4)
    suites = page.evaluate(
        "Array.from(document.querySelectorAll('section.suite')).map(s => s.dataset.suite)"
    )
    assert "liu2009/table3" in suites and n >= len(suites)
    page.screenshot(SCREENSHOTS / "report_results_liu2009.png")


def test_wheel_run_and_report_in_chromium(browser, wheel_venv, tmp_path, tmp_path_factory):
    """Issue #48's acceptance: from an empty folder with myssl.py, the installed wheel's
    ``sskernels run liu2009/table3 --with Mine=myssl:LabeledKNN --splits 2`` (the run
    tests/test_installed_wheel.py checks, made once per session) and ``sskernels report``
    in that folder; the report in Chromium shows the user's row and its rank."""
    from test_installed_wheel import LIU_T3, _sskernels, users_suite_run

    from sskernels.report.build import leaderboards, load

    mirror = require_data(*LIU_T3, who="the report of the installed wheel's liu2009/table3")
    _, bin_dir = wheel_venv
    env = {"SSKERNELS_DATA_MIRROR": str(mirror), "SSKERNELS_DATA_DIR": str(tmp_path / "cache")}
    user_folder, res = users_suite_run(tmp_path_factory, bin_dir, mirror)
    assert res["returncode"] == 0, res["stderr"][-3000:]
    res = _sskernels(bin_dir, ["report"], user_folder, **env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip() == "wrote report.html"
    page = browser.open((user_folder / "report.html").as_uri())
    check_page(page, min_images=1)
    row = page.evaluate(USER_ROW_JS % ("Mine", "Mine", "Mine"))
    assert row is not None, "the user's row is not in the leaderboard"
    board = leaderboards(load([user_folder]))["liu2009/table3"][0].table
    assert board.loc["Mine", "user"]
    assert row["position"] == str(board.loc["Mine", "position"])
    assert row["rank"] == f"{board.loc['Mine', 'rank']:.2f}"
    assert row["results"] == len(LIU_T3)  # its row in the table of every data set
    assert row["glance"] == 1  # and in the table at a glance, shown
    page.screenshot(SCREENSHOTS / "report_wheel_liu2009_table3.png")


#: the documentation's main pages (relative to docs/_build/html)
DOC_PAGES = [
    "index.html",
    "getting_started.html",
    "benchmark_your_own.html",
    "user_guide/index.html",
    "user_guide/graphs.html",
    "papers/index.html",
    "papers/liu2009.html",
    "papers/kscl.html",
    "api/index.html",
    "auto_examples/index.html",
    "architecture.html",
    "results/index.html",
    "results/liu2009.html",
    "results/wang2015.html",
    # sphinx-gallery's page of the examples' times (its table from CDNs): checked
    # where it is written (not with sphinx_gallery_conf's write_computation_times off)
    "sg_execution_times.html",
]
OPTIONAL_PAGES = {"sg_execution_times.html"}


@pytest.mark.parametrize("name", DOC_PAGES)
def test_docs_pages_in_chromium(request, name):
    if not (DOCS_REQUIRED or os.environ.get("SSKERNELS_DOCS_HTML")):
        # a build left in docs/_build may be older than the sources: checked on request only
        pytest.skip(
            "the docs' pages are checked after a fresh `make docs`: "
            "SSKERNELS_REQUIRE_DOCS=1 pytest tests/test_browser.py -k docs "
            "(CI's full stage), or SSKERNELS_DOCS_HTML=FOLDER for another build"
        )
    path = DOCS / name
    if not path.is_file() and name in OPTIONAL_PAGES and DOCS.is_dir():
        pytest.skip(f"{name}: not written by this build (optional)")
    if not path.is_file():
        _missing(f"{path} is not built (make docs)", DOCS_REQUIRED, "SSKERNELS_REQUIRE_DOCS")
    page = request.getfixturevalue("browser").open(path.as_uri())
    external = page.external_requests()
    errors = page.console_errors()
    decoded, broken = page.images()
    page.screenshot(SCREENSHOTS / "docs" / (name.replace("/", "_")[:-5] + ".png"))
    if name.startswith("results/") and name != "results/index.html":
        # a Results page: the report's tables and plots, rendered by sskernels.report
        assert page.evaluate("document.querySelectorAll('.ssk-report table.results').length") > 0
        assert decoded > 0
    assert broken == []
    assert external == [], f"{name} requests {external}"
    assert errors == []
