"""The test plugins: the drift check, the parallel schedule, and how Chromium is launched."""
