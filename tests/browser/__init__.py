"""End-to-end tests in a real browser (Debian Chromium via Playwright) and in JupyterLab."""
