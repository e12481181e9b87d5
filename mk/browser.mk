# Browser test of the built book (tests/book/test_browser_book.py): Playwright (pinned in
# requirements.txt) drives Debian's Chromium, never a browser Playwright downloads.
CHROMIUM      := /usr/bin/chromium
CHROMIUM_STAMP := $(VENV)/.chromium-installed

# Installed with apt when missing (CI's clean machine); a stamp so make does not ask again.
$(CHROMIUM_STAMP): | $(STAMP)
	test -x $(CHROMIUM) || (apt-get update -qq && apt-get install -y -qq chromium)
	touch $@

browser: $(CHROMIUM_STAMP) ## install Debian's Chromium for the browser tests (apt-get, when missing)

# Reads the book as a reader would (phone and laptop widths): no sideways scrolling, no leaked
# nan/<IPython, no broken image or link, a working sidebar toggle, no console error, captioned
# figures; screenshots of Table 5 and Deviations to results/$(PROFILE)/screens/.
browser-check: $(CHROMIUM_STAMP) book/_build/html/index.html ## check the built book in headless Chromium (after make paper / smoke-book)
	TRACE_BOOK_HTML=book/_build/html TRACE_SCREENS=results/$(PROFILE)/screens \
	  $(PY) -m pytest -q -p no:cacheprovider tests/book/test_browser_book.py

# The default book's tables without its hours of LLM runs (book/tools/default_shape.py: every
# baseline, the paper's labels and values); with the default runs scored so far, Table 5 of those.
default-shape-check: $(CHROMIUM_STAMP) ## check the default book's table shape (15 baselines) in headless Chromium, no LLM run
	$(if $(wildcard results/default/scores/closed/*.json),TRACE_DEFAULT_RESULTS=results/default) \
	  $(PY) -m pytest -q -p no:cacheprovider tests/book/test_default_shape.py

TEST_DEPS += $(CHROMIUM_STAMP)

.PHONY: browser browser-check default-shape-check
