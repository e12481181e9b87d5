# Placeholder until the compendium issue lands: the smoke book target used by `make test`.
smoke-book: $(STAMP) ## build the smoke book (tiny KB, few dialogues)
	@echo "smoke book: not built yet"
.PHONY: smoke-book
