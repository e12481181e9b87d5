"""Live evaluation (issue 19): baselines converse with a simulated user (:mod:`.simulator`)
through the loop of :mod:`.loop`, instead of answering replayed reference dialogues."""
