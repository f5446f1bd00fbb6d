"""Test helpers, not shipped: the loopback mock of the Messages API, fault injection, fuzzers,
hostile payloads, the reliability runner, corpus access and review samples."""
