"""The tools beside the service: the load generator and its reports, the bots' arena,
the OpenSpiel game, the administrators' command line. Run by ``tranca`` (cli.py);
no layer of the service imports them (``make lint``: "No layer imports the tools")."""
