# SPDX-License-Identifier: BSD-3-Clause
"""nlr_browser.py — a page opened in headless Chromium through chromedriver (the W3C
WebDriver protocol, spoken over plain HTTP), for nl-report's browser tests.

    with Browser(out_dir) as b:      # exits 77 (skipped) if chromium or chromedriver is missing
        b.open(page)
        value = b.js("return document.title")
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def need_browser():
    """Exit 77 (skipped), saying why, without chromium and chromedriver."""
    for prog in (CHROMIUM, DRIVER):
        if not os.access(prog, os.X_OK):
            print(f"skipped: {prog} is missing (./nlkit deps installs chromium and chromium-driver)")
            sys.exit(77)


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Browser:
    def __init__(self, out, width=1100, height=1300):
        need_browser()
        self.out, self.size = out, (width, height)

    def __enter__(self):
        port = _free_port()
        self.driver = subprocess.Popen([DRIVER, f"--port={port}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                self._call("GET", "/status")
                break
            except OSError:
                time.sleep(0.05)
        args = ["--headless=new", "--no-sandbox", "--disable-gpu",
                f"--window-size={self.size[0]},{self.size[1]}", "--hide-scrollbars",
                f"--user-data-dir={self.out}/chromium-profile"]
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"}}}}
        self.sid = self._call("POST", "/session", caps)["sessionId"]
        return self

    def __exit__(self, *exc):
        try:
            self._call("DELETE", f"/session/{self.sid}")
        finally:
            self.driver.terminate()
            self.driver.wait(10)

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())["value"]

    def open(self, page):
        self._call("POST", f"/session/{self.sid}/url", {"url": "file://" + os.path.abspath(page)})

    def js(self, script, *a):
        return self._call("POST", f"/session/{self.sid}/execute/sync",
                          {"script": script, "args": list(a)})

    def screenshot(self):
        """The window as a PNG, base64-encoded."""
        return self._call("GET", f"/session/{self.sid}/screenshot")

    def severe(self):
        """The console's messages of level SEVERE."""
        logs = self._call("POST", f"/session/{self.sid}/se/log", {"type": "browser"})
        return [e for e in logs if e.get("level") == "SEVERE"]
