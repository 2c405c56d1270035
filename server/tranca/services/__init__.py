"""The use cases of the service, one module each: games and moves (``games``,
``moves``), a seat's table actions and presence (``tables``, ``presence``), starting
a match (``matches``), timers and robots (``timers``), settling finished matches
(``settlement``), tournaments (``tournaments``), players' ratings, points and chips
(``players``), and who may call (``access``, ``limits``, ``credentials``).

They stand on the pure domain (``tranca_rules``, ``tranca.table``, ``tranca.platform``)
and reach the outside only through ports (``ports.py``, and each use case's own
``Protocol``): a repository, which ``tranca.store`` implements for each database (and
the unit tests in memory), and a notifier. The transports (``tranca.api``) call them
and only translate requests and answers. docs/ARCHITECTURE.md has the picture.
"""
