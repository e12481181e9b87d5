"""Live evaluation (TravelBench's simulated-user loop, seed 003 §3): baselines converse with a simulated user (:mod:`.simulator`)
through the loop of :mod:`.loop`, instead of answering replayed reference dialogues."""
