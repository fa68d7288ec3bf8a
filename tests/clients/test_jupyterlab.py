"""The notebooks the way a learner meets them: in JupyterLab, in a real browser.

A session fixture starts `jupyter lab` on 127.0.0.1 with a random port and token, fully
offline (no news, no update check, no extension manager), serving the repository as
`course.py lab` does, from its root, with a copy of the notebooks and the practice copies
made for it, so nothing is written into the working tree. Headless Chromium (the system's,
driven by Playwright):

- runs one representative notebook, RUN_IN_LAB: opens it, clears its outputs, runs it from
  the Run menu (`runmenu:run-all`), waits for the kernel to finish, checks that no cell shows
  an error, that every code cell ran and that its outputs are the stored ones, and saves a
  screenshot to build/screenshots/;
- opens every other English notebook with its stored outputs, all at once, attached
  to that notebook's kernel (so no other kernel starts), and checks that each renders: every
  code cell's stored count and outputs, every figure loaded, no error shown. The Chinese
  notebooks are not opened: what this checks of a notebook (its code cells' counts, outputs,
  figures and folding) is the English one's, since `python -m tools.translations check`
  requires each Chinese notebook to be what `make sync` writes from it (3.5 s less);
- follows the links: every relative link of every notebook of both editions and of every practice
  copy, as JupyterLab resolves it, must name a file the server has (JupyterLab's markdown renderer
  and the contents API, as a click does); a few are clicked: from a practice copy back to its
  worked notebook, from there to the course's home page (the README) and to the previous notebook.

Every notebook's code runs elsewhere in the suite (nbval's run, tools/pytest_notebooks.py):
what only a browser can show is how JupyterLab renders and runs it.
"""

import configparser
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest
from nbval.plugin import find_comment_markers, find_metadata_tags

from tools import manifest
from tools.commands import lab_arguments
from tools.generated import COLAB_BADGE, dumps_notebook, read_notebook
from tools.links import HTML_TARGET, MD_TARGET, is_relative
from tools.manifest import NOTEBOOK_DIR, NOTEBOOKS, ROOT, available
from tools.practice import PRACTICE_DIR, practice_notebook
from tools.pytest_course import EXECUTIONS

#: The notebook run in the browser: the cheapest one (about 3 s of compute) that still shows
#: what only JupyterLab can, a figure drawn by this run beside text outputs, folded cells and
#: the Run menu; its outputs must be the stored ones. It is the suite's one duplicate execution:
#: nbval runs it too, as it runs every notebook, set up for what a browser run cannot check
#: (alone in an empty folder as on Colab, papermill's parameters, the practice stubs).
RUN_IN_LAB = manifest.notebook(2)
OPENED = [entry for entry in NOTEBOOKS if entry != RUN_IN_LAB]
STARTUP_TIMEOUT_S = 120
RUN_TIMEOUT_S = 300  # one notebook, all cells (the papermill test allows the same order)
IMAGES_TIMEOUT_S = 180  # for the figures of every other notebook, all opened at once (a busy machine: 20 s)
# Requests that may leave the page (blocked, never sent): the Colab badge in each header, and the README's
# badges, which show when a notebook's "Course home" link opens it.
EXPECTED_EXTERNAL = {COLAB_BADGE,
                     *re.findall(r"!\[[^\]]*\]\((https://[^)\s]+)\)", (ROOT / "README.md").read_text("utf-8"))}
SETTINGS = {
    # no "Would you like to receive official Jupyter news?" prompt, no update check
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    # never write the served copy behind the test's back
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
    "@jupyterlab/extensionmanager-extension:plugin": {"enabled": False},
    # every cell in the page, so the screenshot holds the whole notebook
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
}


def _write_settings(folder):
    for plugin, values in SETTINGS.items():
        package, name = plugin.split(":")
        path = folder / package / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def _stop(process, log):
    """Terminate, then kill: the server never outlives the module."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
    log.close()


#: Every notebook a learner opens in JupyterLab, by its path from the repository's root: both editions,
#: then the practice copies, each as (entry, edition, whether it is the practice copy).
SERVED = {
    **{edition.repo_path(entry): (entry, edition, False) for entry in NOTEBOOKS for edition in available(entry)},
    **{(PRACTICE_DIR / edition.subdir / entry.filename).relative_to(ROOT).as_posix(): (entry, edition, True)
       for entry in NOTEBOOKS for edition in available(entry)},
}


def _served_notebook(path):
    """The notebook at ``path`` (a key of SERVED); a practice copy is made as `course.py practice` makes it."""
    entry, edition, practice_copy = SERVED[path]
    nb = read_notebook(edition.path(entry))
    return practice_notebook(nb, entry, edition, PRACTICE_DIR / edition.subdir) if practice_copy else nb


def _write_practice_copies(served):
    """The practice copies, as `course.py lab --practice` has them in build/practice/, into the served copy."""
    for path, (_, _, practice_copy) in SERVED.items():
        if practice_copy:
            (served / path).parent.mkdir(parents=True, exist_ok=True)
            (served / path).write_text(dumps_notebook(_served_notebook(path)), encoding="utf-8")


@pytest.fixture(scope="session")
def lab(browser, tmp_path_factory):
    """A JupyterLab server on loopback, one for the session's browser tests: yields (base URL, token)."""
    tmp = tmp_path_factory.mktemp("jupyterlab")
    served = tmp / "course"
    served.mkdir()
    # the repository as `course.py lab` serves it (its root, so that every relative link resolves), with
    # a copy of the notebooks and practice copies made for this server: nothing is written into the working tree
    for path in ROOT.iterdir():
        if not path.name.startswith(".") and path.name not in ("notebooks", "build"):
            (served / path.name).symlink_to(path, target_is_directory=path.is_dir())
    shutil.copytree(NOTEBOOK_DIR, served / "notebooks")
    _write_practice_copies(served)
    _write_settings(tmp / "settings")
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp / "config"), "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"), "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces"),
    }
    token = secrets.token_hex(24)
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser",
        # port 0: the server takes a free port as it binds and says which in its info file (a port
        # chosen here and passed on could be taken by another process while the server starts)
        "--ServerApp.ip=127.0.0.1", "--ServerApp.port=0", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={served}", "--ServerApp.allow_root=True",
        "--ServerApp.terminals_enabled=False",
        "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly", "--LabApp.expose_app_in_browser=True",
    ]
    log_path = tmp / "server.log"
    log = log_path.open("w")
    process = subprocess.Popen(command, env=env, cwd=served, stdout=log, stderr=subprocess.STDOUT)
    info = tmp / "runtime" / f"jpserver-{process.pid}.json"  # written once the server listens
    base = None
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"jupyter lab exited with {process.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                base = base or f"http://127.0.0.1:{json.loads(info.read_text())['port']}"
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5):
                    break
            except (OSError, ValueError, KeyError):  # no info file yet, or written halfway; not answering yet
                if time.monotonic() > deadline:
                    pytest.fail(f"jupyter lab did not answer in {STARTUP_TIMEOUT_S} s:\n{log_path.read_text()[-3000:]}")
                time.sleep(0.25)
        yield base, token
    finally:
        _stop(process, log)


@pytest.fixture(scope="session")
def lab_page(browser, lab):
    """JupyterLab loaded in a page; every request that would leave the machine is blocked and recorded."""
    base, token = lab
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    blocked = []

    def route(route):
        if route.request.url.startswith(base + "/"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.set_default_timeout(STARTUP_TIMEOUT_S * 1000)
    try:
        page.goto(f"{base}/lab?reset&token={token}")
        page.wait_for_function("window.jupyterapp !== undefined")
        page.evaluate("async () => { await window.jupyterapp.restored; window.jupyterapp.shell.collapseLeft(); }")
        yield page, blocked
    finally:
        context.close()


OPEN = """async ([path, kernel]) => {
    const app = window.jupyterapp;
    const args = {path, factory: 'Notebook'};
    if (kernel) args.kernel = {id: kernel};  // attach to a running kernel instead of starting one
    const panel = await app.commands.execute('docmanager:open', args);
    await panel.context.ready;
    await panel.sessionContext.ready;
    app.shell.activateById(panel.id);
    return [panel.id, panel.sessionContext.session.kernel.id];
}"""

# Done when every code cell has run, or a cell failed (the rest are then skipped), and nothing
# is queued or running.
FINISHED = """(id) => {
    const panel = window.jupyterapp.shell.currentWidget;
    if (!panel || panel.id !== id) return false;
    const code = panel.content.widgets.filter(cell => cell.model.type === 'code');
    const ran = code.every(cell => cell.model.executionCount !== null);
    const failed = code.some(cell => cell.model.outputs.toJSON().some(o => o.output_type === 'error'));
    const queued = code.some(cell => (cell.promptNode?.textContent || '').includes('*'));
    const kernel = panel.sessionContext.session?.kernel?.status;
    return (ran || failed) && !queued && kernel === 'idle';
}"""

# What the test checks of one open notebook (a JavaScript function of its panel).
STATE_OF = """(panel) => {
    const code = panel.content.widgets.filter(cell => cell.model.type === 'code');
    return {
        counts: code.map(cell => cell.model.executionCount),
        outputs: code.map(cell => cell.model.outputs.length),
        errors: code.flatMap((cell, i) => cell.model.outputs.toJSON()
            .filter(o => o.output_type === 'error').map(o => `code cell ${i + 1}: ${o.ename}: ${o.evalue}`)),
        shown_errors: panel.node.querySelectorAll(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').length,
        images: Array.from(panel.node.querySelectorAll('.jp-OutputArea-output img'))
            .map(img => img.complete && img.naturalWidth > 0),
        height: panel.node.querySelector('.jp-WindowedPanel-outer').scrollHeight,
        folded: code.map(cell => cell.inputHidden),  // the set-up cell and the worked answers
    };
}"""
STATE = f"() => ({STATE_OF})(window.jupyterapp.shell.currentWidget)"

# The outputs of the current notebook's code cells, as nbformat JSON.
OUTPUTS = """() => window.jupyterapp.shell.currentWidget.content.widgets
    .filter(cell => cell.model.type === 'code').map(cell => cell.model.outputs.toJSON())"""

SCROLL_TO_TOP = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    panel.content.activeCellIndex = 0;
    panel.node.querySelector('.jp-WindowedPanel-outer').scrollTop = 0;
}"""

# Closes the document `id` unsaved (`shutDown`: a notebook, with its kernel, once it has started).
CLOSE = """async ([id, shutDown]) => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(widget => widget.id === id);
    if (shutDown) {
        await panel.sessionContext.ready;
        await panel.sessionContext.shutdown();
    }
    panel.context.model.dirty = false;
    panel.dispose();
}"""


# Every other notebook, opened at once, each attached to the running kernel `kernel`: each
# one's state is read when its figures have loaded (or at the deadline, and the test says
# which did not), then it is closed unsaved. At once rather than one by one, because the page
# renders one notebook while the server reads the next (19 notebooks: 9 s against 14 s here).
# A notebook whose stored outputs hold no figure (notebook 0) is read at once.
# A notebook that fails to open reports its error, so that only its own test fails.
OPEN_ALL = f"""async ([paths, figures, kernel, deadlineMs]) => {{
    const app = window.jupyterapp;
    const imagesLoaded = (panel, expected) => {{
        const images = Array.from(panel.node.querySelectorAll('.jp-OutputArea-output img'));
        return images.length >= expected && images.every(img => img.complete && img.naturalWidth > 0);
    }};
    return Promise.all(paths.map(async (path, i) => {{
        try {{
            const args = {{path, factory: 'Notebook', kernel: {{id: kernel}}}};
            const panel = await app.commands.execute('docmanager:open', args);
            await panel.context.ready;
            await panel.sessionContext.ready;
            const deadline = performance.now() + deadlineMs;
            while (!imagesLoaded(panel, figures[i]) && performance.now() < deadline) {{
                await new Promise(r => setTimeout(r, 100));
            }}
            const state = ({STATE_OF})(panel);
            panel.context.model.dirty = false;
            panel.dispose();
            return state;
        }} catch (error) {{
            return {{open_error: String(error)}};
        }}
    }}));
}}"""


def _sanitizers():
    """nbval's sanitisers (tests/nbval_sanitize.cfg): (pattern, replacement) pairs."""
    config = configparser.ConfigParser()
    config.read(ROOT / "tests" / "nbval_sanitize.cfg")
    return [(re.compile(config[section]["regex"]), config[section]["replace"]) for section in config.sections()]


def _shown(outputs):
    """What a code cell's outputs say, as nbval compares them: each output's kind, its text (sanitised)
    and which data it holds; consecutive stream outputs of one name merged, as nbval merges them."""
    shown = []
    for output in outputs:
        kind = output["output_type"]
        if kind == "stream":
            text = "".join(output["text"])
            if shown and shown[-1][:2] == ("stream", output["name"]):
                text = shown.pop()[2] + text
            shown.append(("stream", output["name"], text))
        elif kind in ("display_data", "execute_result"):
            data = output.get("data", {})
            shown.append(("data", tuple(sorted(data)), "".join(data.get("text/plain", ""))))
        else:
            shown.append((kind, output.get("ename"), output.get("evalue")))
    sanitizers = _sanitizers()
    for i, (kind, name, text) in enumerate(shown):
        for pattern, replacement in sanitizers:
            text = pattern.sub(replacement, text)
        shown[i] = (kind, name, text)
    return shown


def _menu(page, menu, command):
    page.locator(".lm-MenuBar-item", has_text=re.compile(f"^{menu}$")).click()
    page.locator(f'.lm-Menu-item[data-command="{command}"]').click()


@pytest.fixture(scope="module")
def lab_run(lab_page, screenshots):
    """RUN_IN_LAB, run from the Run menu: yields its state and its kernel's id (kept running for the others)."""
    page, blocked = lab_page
    entry = RUN_IN_LAB
    code_cells = sum(cell.cell_type == "code" for cell in nbformat.read(entry.path, as_version=4).cells)
    panel, kernel = page.evaluate(OPEN, [entry.repo_path, None])
    _menu(page, "Edit", "editmenu:clear-all")  # so that what the test sees is this run's
    assert page.evaluate(STATE)["counts"] == [None] * code_cells
    start = time.perf_counter()
    _menu(page, "Run", "runmenu:run-all")
    page.wait_for_function(FINISHED, arg=panel, timeout=RUN_TIMEOUT_S * 1000, polling=250)
    seconds = time.perf_counter() - start
    state = page.evaluate(STATE)
    state["shown"] = [_shown(outputs) for outputs in page.evaluate(OUTPUTS)]
    # the whole notebook in one picture: a viewport as tall as the notebook (Chromium's limit: 16384 px)
    page.set_viewport_size({"width": 1280, "height": min(state["height"] + 150, 16000)})
    page.evaluate(SCROLL_TO_TOP)
    page.wait_for_timeout(300)
    page.screenshot(path=str(screenshots / f"jupyterlab-{entry.stem}.png"))
    page.set_viewport_size({"width": 1280, "height": 900})
    print(f"{entry.stem}: {code_cells} code cells ran in JupyterLab in {seconds:.1f} s")
    try:
        yield code_cells, state, kernel
    finally:
        page.evaluate(CLOSE, [panel, True])


def test_the_representative_notebook_runs_in_jupyterlab(lab_run, lab_page, record_property):
    record_property(EXECUTIONS, f"jupyterlab: {RUN_IN_LAB.stem}")
    code_cells, state, _ = lab_run
    _, blocked = lab_page
    name = RUN_IN_LAB.filename
    assert state["errors"] == [], f"{name}: cells failed in JupyterLab: {state['errors']}"
    assert state["shown_errors"] == 0, f"{name}: {state['shown_errors']} outputs shown as errors"
    assert state["counts"] == list(range(1, code_cells + 1)), \
        f"{name}: expected {code_cells} code cells run in order, got execution counts {state['counts']}"
    assert sum(state["outputs"]) > 0 and all(state["images"]), "outputs and figures rendered"
    assert len(state["images"]) >= _figures(RUN_IN_LAB) > 0, f"{name}: the figures this run drew, shown"
    # the outputs of this run are the stored ones (which nbval's own run of the notebook also matches)
    stored = [cell for cell in nbformat.read(RUN_IN_LAB.path, as_version=4).cells if cell.cell_type == "code"]
    for cell, shown in zip(stored, state["shown"], strict=True):
        options = {**dict(find_metadata_tags(cell.metadata)), **dict(find_comment_markers(cell.source))}
        if options.get("check") is False or options.get("skip"):  # nbval-ignore-output, nbval-skip: as nbval
            continue
        assert shown == _shown(cell.outputs), f"{name}, cell {cell.id}: JupyterLab shows other outputs than stored"
    setup = next(i for i, cell in enumerate(stored) if cell.get("id") == "course-setup")  # after "What you will learn"
    assert state["folded"][setup] and sum(state["folded"]) > 1, "the set-up cell and the answers are folded"
    assert set(blocked) <= EXPECTED_EXTERNAL, f"requests that would have left the machine: {set(blocked)}"


def _figures(entry):
    """How many figures the stored notebook shows (PNG outputs); at least one renders as an <img> each."""
    cells = nbformat.read(entry.path, as_version=4).cells
    return sum("image/png" in output.get("data", {}) for cell in cells if cell.cell_type == "code"
               for output in cell.outputs)


@pytest.fixture(scope="module")
def opened(lab_run, lab_page):
    """Every other notebook's state in JupyterLab, by entry (OPEN_ALL)."""
    page, _ = lab_page
    paths, figures = [entry.repo_path for entry in OPENED], [_figures(entry) for entry in OPENED]
    states = page.evaluate(OPEN_ALL, [paths, figures, lab_run[2], IMAGES_TIMEOUT_S * 1000])
    return dict(zip(OPENED, states, strict=True))


@pytest.mark.parametrize("entry", OPENED, ids=[entry.repo_path for entry in OPENED])
def test_every_other_notebook_opens_with_its_outputs(opened, lab_page, entry):
    _, blocked = lab_page
    stored = nbformat.read(entry.path, as_version=4)
    code = [cell for cell in stored.cells if cell.cell_type == "code"]
    state = opened[entry]
    assert "open_error" not in state, f"{entry.repo_path}: did not open: {state.get('open_error')}"
    assert state["counts"] == [cell.execution_count for cell in code], f"{entry.repo_path}: stored counts"
    assert state["outputs"] == [len(cell.outputs) for cell in code], f"{entry.repo_path}: stored outputs"
    assert state["errors"] == [] and state["shown_errors"] == 0
    assert len(state["images"]) >= _figures(entry) and all(state["images"]), \
        f"{entry.repo_path}: figures loaded {state['images']} after {IMAGES_TIMEOUT_S} s"
    folded = [cell.metadata.get("jupyter", {}).get("source_hidden", False) for cell in code]
    setup = next(i for i, cell in enumerate(code) if cell.get("id") == "course-setup")  # after notebook 0's core
    assert state["folded"] == folded and folded[setup], f"{entry.repo_path}: the set-up and answers show folded"
    assert set(blocked) <= EXPECTED_EXTERNAL, f"requests that would have left the machine: {set(blocked)}"


# --- Links, followed where the learner is: every relative link of the notebooks (both editions) and of the
# practice copies, resolved by JupyterLab in the server `course.py lab` starts (its root is the repository's).

# Each notebook's markdown cells rendered by JupyterLab's own renderer with the URL resolver of a notebook
# at that path (what a notebook panel does), then each link's target asked of the contents API the way a
# click on it does (contents.get, then open). A link or image that JupyterLab takes for a file of the server
# points at that file's download address, files/<resolved path>.
LINKS = """async (paths) => {
    const app = window.jupyterapp;
    const panel = app.shell.currentWidget;  // any open notebook: its renderer, cloned for each path
    const contents = app.serviceManager.contents;
    const Resolver = panel.context.urlResolver.constructor;
    const files = new URL('files/', app.serviceManager.serverSettings.baseUrl).pathname;
    const found = {};
    for (const path of paths) {
        const rendermime = panel.content.rendermime.clone({resolver: new Resolver({path, contents})});
        const cells = (await contents.get(path)).content.cells.filter(cell => cell.cell_type === 'markdown');
        found[path] = [];
        for (const cell of cells) {
            const renderer = rendermime.createRenderer('text/markdown');
            const source = Array.isArray(cell.source) ? cell.source.join('') : cell.source;
            await renderer.renderModel({data: {'text/markdown': source}, metadata: {}, trusted: true,
                                        setData: () => {}});
            const nodes = renderer.node.querySelectorAll('a[href]:not([href^="#"]), img[src]');
            for (const url of Array.from(nodes, node => new URL(node.href || node.src))) {
                if (url.origin !== location.origin) continue;  // a URL: not a file of the course
                found[path].push(url.pathname.startsWith(files)
                    ? decodeURIComponent(url.pathname.slice(files.length)) : `${url.pathname} (not under files/)`);
            }
            renderer.dispose();
        }
    }
    const answers = {};
    for (const target of new Set(Object.values(found).flat())) {
        answers[target] = await contents.get(target, {content: false}).then(() => 'ok', error => String(error));
    }
    return Object.fromEntries(Object.entries(found).map(([path, targets]) =>
        [path, targets.map(target => [target, answers[target]])]));
}"""


def _relative_links(path):
    """The relative links and images of a served notebook's markdown cells, as written (tools/links.py's patterns)."""
    cells = _served_notebook(path).cells
    return [match.group(2) for cell in cells if cell.cell_type == "markdown"
            for pattern in (MD_TARGET, HTML_TARGET) for match in pattern.finditer(cell.source)
            if is_relative(match.group(2))]


def test_lab_serves_the_repository_root_with_notebook_0_open():
    """What the served copy above stands for: `course.py lab` serves the repository's root and opens notebook 0
    (`--practice`: its practice copy), so the links checked below are the ones a learner follows."""
    for practice_copies, opened in ((False, NOTEBOOKS[0].path), (True, PRACTICE_DIR / NOTEBOOKS[0].filename)):
        assert lab_arguments(practice_copies) == [f"--ServerApp.root_dir={ROOT}", str(opened)]


@pytest.fixture(scope="module")
def links_in_lab(lab_run, lab_page):
    """Every link of every SERVED notebook, as JupyterLab resolves it: {path: [(target, the server's answer)]}."""
    page, _ = lab_page
    panel, _ = page.evaluate(OPEN, [next(iter(SERVED)), lab_run[2]])
    try:
        return page.evaluate(LINKS, list(SERVED))
    finally:
        page.evaluate(CLOSE, [panel, False])


@pytest.mark.parametrize("path", SERVED)
def test_every_relative_link_resolves_in_jupyterlab(links_in_lab, path):
    links, written = links_in_lab[path], _relative_links(path)
    assert written and len(links) == len(written), f"{path}: JupyterLab resolved {len(links)} links of {written}"
    broken = [(target, answer) for target, answer in links if answer != "ok"]
    assert broken == [], f"{path}: links that JupyterLab cannot open (resolved target, the server's answer): {broken}"


# After a click on a link: the document it opened (its id and path), or JupyterLab's error dialog.
OPENED_BY_CLICK = """(before) => {
    const dialog = document.querySelector('.jp-Dialog');
    if (dialog) return {dialog: dialog.textContent};
    const widget = window.jupyterapp.shell.currentWidget;
    return widget && widget.id !== before && widget.context ? {id: widget.id, path: widget.context.path} : false;
}"""


def _follow(page, panel, text):
    """Clicks the (first) link reading ``text`` in the notebook ``panel`` (its id), as a learner does: what it
    opened."""
    page.evaluate("(id) => window.jupyterapp.shell.activateById(id)", panel)
    page.locator(f'[id="{panel}"] .jp-RenderedMarkdown a', has_text=re.compile(f"^{re.escape(text)}$")).first.click()
    opened = page.wait_for_function(OPENED_BY_CLICK, arg=panel, polling=100).json_value()
    assert "dialog" not in opened, f"the link {text!r} opened an error: {opened['dialog']}"
    return opened


def test_a_learner_clicks_the_course_home_a_neighbour_and_the_way_back_from_a_practice_copy(lab_run, lab_page):
    """A few links clicked in the page (the rest are resolved above): from a practice copy back to its
    worked notebook, from there to the course's home page (the README, outside notebooks/) and to the
    previous notebook. Each notebook clicked open starts its own kernel, shut down with it."""
    page, blocked = lab_page
    practice, worked = (PRACTICE_DIR / NOTEBOOKS[1].filename).relative_to(ROOT).as_posix(), NOTEBOOKS[1].repo_path
    panel, _ = page.evaluate(OPEN, [practice, lab_run[2]])
    notebooks = [panel]
    try:
        back = _follow(page, panel, worked)  # the practice note's link: the worked notebook's path
        notebooks.append(back["id"])
        assert back["path"] == worked
        home = _follow(page, back["id"], "Course home")
        page.evaluate(CLOSE, [home["id"], False])
        assert home["path"] == "README.md"
        previous = _follow(page, back["id"], f"← 0. {NOTEBOOKS[0].title}")
        notebooks.append(previous["id"])
        assert previous["path"] == NOTEBOOKS[0].repo_path
    finally:
        for notebook in notebooks:
            page.evaluate(CLOSE, [notebook, notebook != panel])
    assert set(blocked) <= EXPECTED_EXTERNAL, f"requests that would have left the machine: {set(blocked)}"
