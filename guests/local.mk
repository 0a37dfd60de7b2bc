# guests/ — protocol implementations that run as guests (docs/guest.md),
# installed beside scenarios/ so that a scenario's relative guest_command
# (../../guests/...) works from $(pkgdatadir) as from the source tree.
nobase_dist_pkgdata_DATA += \
	guests/pushpull/pushpull.py \
	$(NULL)
EXTRA_DIST += guests/README.md
