"""The trusted side of the sandbox boundary: launch the worker isolated, limit it, talk to it, reap it;
fork workers (and `grade`'s own grading) from a zygote that holds torch."""
