"""What keeps the suite safe to point at a deployment it does not trust, and beside other
users of the machine: the deployment's words made safe to show (text.py), the forms a secret
takes on the way to a report (secret_forms.py), and the run-wide files, private to the user
(run_files.py). A floor of the suite, like steps/outcomes.py: every room may stand on it."""
