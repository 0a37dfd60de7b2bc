# scenarios/ — installed under $(pkgdatadir)/scenarios by make install (every
# shipped file: tests/cli.sh checks that this list is complete).
nobase_dist_pkgdata_DATA += \
	scenarios/demo.ini \
	scenarios/compare/gossip-vs-disco.ini \
	scenarios/compare/hier-vs-disco.ini \
	scenarios/data/digits-mlp.ini \
	scenarios/data/digits-softmax.ini \
	scenarios/data/fashion-mlp-20.ini \
	scenarios/data/fashion-mlp.ini \
	scenarios/data/fashion-softmax.ini \
	scenarios/edge/send-on-closing-link.ini \
	scenarios/examples/convergence-vs-churn.ini \
	scenarios/examples/explore-base.ini \
	scenarios/examples/explore-pipeline.ini \
	scenarios/examples/implosion-10k.ini \
	scenarios/examples/implosion.ini \
	scenarios/examples/implosion-churn.ini \
	scenarios/examples/stragglers.ini \
	scenarios/examples/petals-next-peer.ini \
	scenarios/examples/availability.ini \
	scenarios/examples/fed-vs-gossip.ini \
	scenarios/examples/traces/diurnal-day.csv \
	scenarios/examples/traces/petals-no-churn.csv \
	scenarios/examples/traces/petals-server-churn.csv \
	scenarios/reproductions/petals-1gbit-5ms.ini \
	scenarios/reproductions/petals-100mbit-5ms.ini \
	scenarios/reproductions/petals-100mbit-100ms.ini \
	scenarios/reproductions/pushpull-10k.ini \
	scenarios/reproductions/pushpull-10k-loss10.ini \
	scenarios/reproductions-large/pushpull-100k.ini \
	scenarios/regression/replica-gossip-leader-crash.ini \
	scenarios/traces/fedscale-behave.jsonl \
	scenarios/traces/fedscale-capacity.jsonl \
	scenarios/traces/leave-and-return.csv \
	scenarios/traces/uplink-drop.csv \
	$(NULL)
