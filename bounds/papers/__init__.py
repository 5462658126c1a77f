"""The papers, one module each; every module here declares one :class:`~bounds.paper.Paper` as ``PAPER``.

Modules are discovered (:func:`bounds.discovery.discover_papers`), never listed: adding a paper
means adding a module here, and nothing else in :mod:`bounds` changes.
"""
