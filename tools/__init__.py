"""Developer tools, not shipped and never imported by the package: the demo library builder
(``demo_build``, ``demo_script``) and the cassette recorders (``record_cassette``)."""
