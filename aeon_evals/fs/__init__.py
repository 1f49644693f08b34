"""The disk: paths confined to the instance root (no symlink out, no FIFO or device),
bounded reads, atomic writes (temp file and rename, signals held), the instance lock, git's
view of the root, and the byte-exact edit of the day's log.
"""
