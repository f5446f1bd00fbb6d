"""Test and benchmark helpers shipped with oo_nb: fault injection, fuzzing, hostile payloads,
and (from the agent's side) a loopback mock of the Messages API. Nothing here runs in normal use."""
