"""The only way a document is written: lock, expected-bytes check, history snapshot, atomic
replace (``store``, ``atomic``, ``history``), proposals awaiting review (``proposals``), the clock
(a seam tests and demos set) and the one folder walk (``discover``)."""
