"""The bundled reference server: the whole MusicBrainz OAuth 2.0 spec over HTTPS on SQLite.

Layers, lowest first. A module imports modules of its own layer or of a layer below, never
of a layer above; a package (a name ending in "/") is all of its modules. Starlette is
imported only in the layers marked "web", the ones that face HTTP. `oauth/` (the endpoints
machines call, answering JSON) and `web/` (the pages people see, the authorization endpoint
among them) never import each other: what both need lives below them.
tests/server/test_layering.py checks every import against this table.

    layer      web  modules
    rules      -    errors scopes pkce redirects credentials clock limits names account_rules
    storage    -    storage schema migrate checkpoint groupcommit
    domain     -    accounts grants/ guard purge
    state      -    state
    http       web  inbound
    endpoints  web  oauth/ web/ testclock
    app        web  app
    process    -    descriptors connections protocol writes tls tlsgate
    command    -    serve launcher run_options cli password_prompt __main__

rules: framework-free rules and errors (no I/O). domain: the spec's effects on the database.
state: what a request handler needs (store, clock, guard). http: reading requests, shared by
`oauth/` and `web/`. app: routes, and the renderers of `errors` registered once. process:
TLS, the HTTP limits and the connections. command: worker processes and the command line.

Every rule of features/rules.toml is named once in this package, by its id, beside the line
that enforces it (an observation, INFO-*, beside the line that makes what it records): search
the id to find the code (tests/test_rule_thread.py).
"""
