# python/ — the dlsim Python package (docs/python.md): pure Python over
# the binary and the results database.  `make install` puts it in the
# system's Python path ($(pkgpythondir), that is $(pythondir)/dlsim, from
# configure's AM_PATH_PYTHON); in the source tree PYTHONPATH=python finds it,
# and so does `import dlsim` in the top folder, through its dlsim.py.
pkgpython_PYTHON = \
	python/dlsim/__init__.py \
	python/dlsim/guest.py \
	python/dlsim/plot.py \
	python/dlsim/_binary.py \
	python/dlsim/results.py \
	python/dlsim/runs.py \
	python/dlsim/scenario.py \
	python/dlsim/search.py \
	python/dlsim/vclock.py \
	$(NULL)
EXTRA_DIST += dlsim.py
