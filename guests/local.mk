# guests/ — protocol implementations that run as guests (docs/guest.md),
# installed beside scenarios/ and protocol/ so that a scenario's relative
# guest_command (../../guests/... from scenarios/edge/,
# ../../../guests/... from protocol/guest/scenarios/) works from
# $(pkgdatadir) as from the source tree.
nobase_dist_pkgdata_DATA += \
	guests/pushpull/pushpull.py \
	guests/testing/close-race.py \
	guests/asyncio/vclock.py \
	guests/asyncio/sleepy.py \
	guests/disco/install.sh \
	guests/disco/run.sh \
	guests/disco/twin.sh \
	guests/disco/conformance.sh \
	guests/disco/guestify.sh \
	guests/disco/pin.sh \
	guests/disco/driver.mjs \
	guests/disco/hooks.mjs \
	guests/disco/shims/empty.mjs \
	guests/disco/shims/sharp.mjs \
	guests/disco/shims/simple-peer.mjs \
	guests/disco/shims/uuid.mjs \
	guests/disco/shims/ws.mjs \
	$(NULL)
EXTRA_DIST += guests/README.md
