"""The tests' harness: databases to test on and servers started on them, written once
for every test package that needs a real server."""
