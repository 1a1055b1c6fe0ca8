"""The program's equations as a table: its rows, its text, its signature, the rows a live kernel serves."""
