"""Open a local HTML file in headless Chromium (Debian's ``chromium``, `make chromium` installs it) and talk
to it over the Chrome DevTools Protocol: console errors, uncaught exceptions, JavaScript results, a
screenshot and the elements that overflow horizontally. Only the loopback address is used; the browser is
told not to reach the network."""
from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run")


def chromium_path() -> str | None:
    """The Chromium executable, or None when it is not installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class Page:
    """A page opened in the browser; ``errors`` collects console errors and uncaught exceptions."""

    socket: object
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    def call(self, method: str, **params) -> dict:
        """Send one DevTools command and return its result (events seen meanwhile are recorded)."""
        message_id = next(self.ids)
        self.socket.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=60))
            if message.get("id") == message_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._event(message)

    def wait_for(self, event: str, timeout: float = 60) -> None:
        """Read events until ``event`` arrives."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = json.loads(self.socket.recv(timeout=max(0.1, deadline - time.monotonic())))
            self._event(message)
            if message.get("method") == event:
                return
        raise TimeoutError(event)

    def _event(self, message: dict) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append("exception: " + str(details.get("exception", {}).get("description", details.get("text"))))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append("log: " + params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            self.requests.append(params.get("request", {}).get("url", ""))

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"])
        return result["result"].get("value")

    def horizontal_overflow(self, open_details: bool = True) -> list[str]:
        """Every element that sticks out of the window on the right, or whose content is wider than its box where
        it scrolls or clips (a hidden horizontal scrollbar), as ``tag#id.class right=… scroll=…/client=…``;
        with ``open_details`` every ``<details>`` is opened first, so folded content is measured too."""
        return self.evaluate(OVERFLOW_JS.replace("OPEN", "true" if open_details else "false"))

    def screenshot(self) -> bytes:
        """A PNG of the whole page."""
        return base64.b64decode(self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"])


OVERFLOW_JS = """(() => {
  if (OPEN) { document.querySelectorAll('details').forEach(d => { d.open = true; }); }
  const width = document.documentElement.clientWidth;
  const found = [];
  if (document.documentElement.scrollWidth > width) { found.push('document scrollWidth=' + document.documentElement.scrollWidth); }
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) { continue; }
    const clips = ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
    if (box.right > width + 0.5 || (clips && el.scrollWidth > el.clientWidth + 1)) {
      const cls = typeof el.className === 'string' ? el.className : '';
      found.push(el.tagName.toLowerCase() + '#' + el.id + '.' + cls + ' right=' + Math.round(box.right)
                 + ' scroll=' + el.scrollWidth + '/client=' + el.clientWidth);
    }
  }
  return found;
})()"""


class Browser:
    """Headless Chromium with a fresh profile, as a context manager yielding a :class:`Page` per ``open``."""

    def __init__(self, width: int = 1280, height: int = 1800) -> None:
        self.size = (width, height)

    def __enter__(self) -> Browser:
        self.profile = tempfile.mkdtemp(prefix="irfair-chromium-")
        command = [chromium_path(), *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
                   "--remote-allow-origins=*", f"--window-size={self.size[0]},{self.size[1]}", "about:blank"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and port_file.read_text().count("\n") >= 1):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("chromium did not start")
            time.sleep(0.1)
        self.port = int(port_file.read_text().split()[0])
        self.sockets = contextlib.ExitStack()
        return self

    def open(self, path: Path):
        """Load ``path`` in the browser's page and return a connected :class:`Page` once it has loaded."""
        from websockets.sync.client import connect

        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list", timeout=30) as response:
            targets = json.load(response)
        target = next(t for t in targets if t.get("type") == "page")
        socket = self.sockets.enter_context(connect(target["webSocketDebuggerUrl"], max_size=None, open_timeout=30))
        page = Page(socket)
        for domain in ("Runtime", "Log", "Page", "Network"):
            page.call(f"{domain}.enable")
        page.call("Page.navigate", url=Path(path).resolve().as_uri())
        page.wait_for("Page.loadEventFired")
        return page

    def __exit__(self, *exc) -> None:
        self.sockets.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
