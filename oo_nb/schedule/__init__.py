"""Scheduling a library's unattended updates: the job (``job``), as a crontab entry (``cron``) or
a systemd user timer (``systemd``). Only the standard library and ``errors`` below it: the CLI's
``oo schedule`` installs it, and the job runs ``oo schedule DIR --run``."""
