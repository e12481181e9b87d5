"""The paper's official release layout (paper §2.1 Release, Appendix D, Appendix H).

``official`` maps one dialogue between our schema and the release's record, ``bundle`` reads
(and, for a synthetic KB, writes) a Yelp Open Dataset bundle, ``importer`` turns a release plus
a user's bundle into a KB and a corpus with a mapping report, ``exporter`` writes our corpus in
the release layout.  The real release files were not available when this was written: the
layout follows the paper's field inventory (see README, "The paper's release").
"""
