"""The bundled reference server: the whole MusicBrainz OAuth 2.0 spec over HTTPS on SQLite.

Its layers, lowest first, are in docs/architecture.md ("The server's layers"): a module
imports modules of its own layer or of a layer below; Starlette only in the layers that face
HTTP; `oauth/` (the endpoints machines call) and `web/` (the pages people see) never import
each other. tests/server/test_layering.py holds the imports to that table.

Every rule of features/rules.toml is named by its id in a comment on the lines that decide it
(each of them, where several do; an observation, INFO-*, where what it records is made):
search the id to find the code (tests/test_rule_thread.py).
"""
