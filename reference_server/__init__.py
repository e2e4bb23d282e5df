"""The bundled reference server: the whole MusicBrainz OAuth 2.0 spec over HTTPS on SQLite.

Layers, lowest first. A module imports modules of its own layer or of a layer below, never
of a layer above; a package (a name ending in "/") is all of its modules. Starlette is
imported only in the layers marked "web", the ones that face HTTP. `oauth/` (the endpoints
machines call, answering JSON) and `web/` (the pages people see, the authorization endpoint
among them) never import each other: what both need lives below them.
tests/server/test_layering.py checks every import against this table.

    layer      web  modules
    rules      -    errors scopes pkce redirects credentials clock limits names account_rules
    wire       -    urlencoded answers
    storage    -    storage schema checkpoint groupcommit
    domain     -    accounts grants/ guard purge
    state      -    state
    core       -    oauth/
    http       web  inbound endpoints
    pages      web  web/ testclock
    app        web  app
    process    -    descriptors connections protocol writes tls tlsgate
    command    -    serve launcher run_options cli password_prompt __main__

rules: framework-free rules and errors (no I/O). wire: parameters read from bytes, answers
written as bytes, alike for every endpoint and page. domain: the spec's effects on the
database. state: what a request handler needs (store, clock, guard). core: the token,
revocation and user-information endpoints as functions from plain request values to
answers, with no HTTP (oauthlib's endpoint shape). http: Starlette's side of requests,
shared by the core's handlers (`endpoints`) and the pages. pages: the pages people see.
app: routes, and the renderers of the pages' errors registered once. process: TLS, the HTTP
limits and the connections. command: worker processes and the command line.

Every rule of features/rules.toml is named by its id in a comment on the lines that decide it
(each of them, where several do; an observation, INFO-*, where what it records is made):
search the id to find the code (tests/test_rule_thread.py).
"""
