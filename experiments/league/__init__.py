"""The league: its runs on the runner (``play``) and what they say (``results``)."""
