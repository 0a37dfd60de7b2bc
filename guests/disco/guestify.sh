#!/bin/sh
# guestify.sh FILE - print the guest twin of FILE, a scenario of dlsim's
# disco family at version disco-1110 (the default): the same scenario run by
# DISCO's own code at PR #1110 (driver.mjs), for protocol/guest/scenarios/disco1110/
# (guest_command = sh ../../../../guests/disco/run.sh ...).  What changes:
#   [protocol]  family = guest; max_connection_retry, peer_connection_timeout
#               and model_sync_timeout become the driver's options; the
#               guest says #1110's facts with RetryPeerConnections and
#               ConnectionFail playing their roles, its rounds begin at
#               `start` (StartWeightSharing, as the C coordinator's with a
#               connection barrier), and its hang window is the C family's
#               longest wait: (M + 2) x peer_connection_timeout +
#               model_sync_timeout + 60 s (the payload timeout); the ids
#               sort as node numbers (driver.mjs --ordered-ids), so the
#               larger node number initiates a link, as in C
#   [training]  after_training = stay (the only value it runs) dropped
#   [timeline]  a rule on a C message type names the guest's kind of that
#               name (drop ConnectionsReady -> drop Guest:ConnectionsReady;
#               NewNodeInfo is DISCO's NewDecentralizedNodeInfo)
#   [model]     dropped (a guest trains nothing); [compute] none_samples =
#               100 if the file has no [compute]
#   [expect]    kept, but for peer.NAME.state (the C machines' state names;
#               the guest's are DISCO's status words): the C machines' pins,
#               which pin.sh then checks against DISCO's own run
# Exit 3 and print nothing for a file the guest cannot run: another family or
# version, a webapp runtime, after_training = leave, or a payload_timeout or
# aggregation_wait other than DISCO's hard-coded 60 s and 15 s.
set -eu
f=${1:?usage: guestify.sh FILE}
out=$(awk '
  function ms(d,    n, u) {
    n = d + 0; u = d; sub(/^[0-9.]+/, "", u)
    return u == "ms" ? n : u == "s" ? n * 1000 : u == "min" ? n * 60000 : -1
  }
  function val(    x) { x = $0; sub(/^[^=]*= */, "", x); sub(/ *#.*$/, "", x); return x }
  function skip(why) { if (!bad) print "guestify.sh: " FILENAME ": " why > "/dev/stderr"; bad = 1 }
  # first pass: the keys that decide the command
  NR == FNR {
    if (/^\[/) { sec = $0; if (sec == "[compute]") compute = 1 }
    else if (sec == "[protocol]" && /^family *=/ && val() != "disco") skip("family " val())
    else if (sec == "[protocol]" && /^version *=/ && val() != "disco-1110") skip("version " val())
    else if (sec == "[protocol]" && /^max_connection_retry *=/) M = val() + 0
    else if (sec == "[protocol]" && /^peer_connection_timeout *=/) T = ms(val())
    else if (sec == "[protocol]" && /^model_sync_timeout *=/) S = ms(val())
    else if (sec == "[protocol]" && /^payload_timeout *=/ && ms(val()) != 60000) skip("payload_timeout " val())
    else if (sec == "[protocol]" && /^aggregation_wait *=/ && ms(val()) != 15000) skip("aggregation_wait " val())
    else if (sec == "[protocol]" && /^aggregation *=/ && val() != "mean") secure = 1
    else if (sec == "[training]" && /^after_training *=/ && val() == "leave") skip("after_training = leave")
    else if (sec == "[peers]" && /^runtime *=/ && val() == "webapp") skip("runtime webapp")
    next
  }
  FNR == 1 {
    if (bad) exit 3
    if (M == "") M = 3
    if (T == "") T = 60000
    if (S == "") S = 30000
    sec = ""
  }
  /^\[/ {
    sec = $0
    if (sec == "[expect]" && !compute) { print "[compute]"; print "none_samples = 100"; print "" }
    if (sec != "[model]") print
    if (sec == "[protocol]") {
      print "family = guest"
      print "guest_command = sh ../../../../guests/disco/run.sh --max-connection-retry " M " --peer-connection-time " T " --model-sync-time " S " --ordered-ids" (secure ? " --aggregation secure" : "")
      print "guest_agreement = on"
      print "guest_round_begins = start"
      print "guest_barrier_retry = RetryPeerConnections"
      print "guest_connection_fail = ConnectionFail"
      print "guest_max_connection_retry = " M
      print "guest_stall = " ((M + 2) * T + S + 60000) / 1000 "s"
    }
    next
  }
  sec == "[model]" { next }
  sec == "[protocol]" && /^(family|version|max_connection_retry|peer_connection_timeout|model_sync_timeout|payload_timeout|aggregation_wait|aggregation) *=/ { next }
  sec == "[peers]" && /^runtime *=/ { next }
  sec == "[training]" && /^after_training *=/ { next }
  sec == "[expect]" && /^peer\.[a-z0-9]+\.state *=/ { next }
  sec == "[timeline]" {
    gsub(/(drop|delay) NewNodeInfo( |$)/, "&\001")
    gsub(/NewNodeInfo *\001/, "NewDecentralizedNodeInfo ")
    line = ""
    while (match($0, /(drop|delay) [A-Z][A-Za-z]*/)) {
      hit = substr($0, RSTART, RLENGTH); sp = index(hit, " ")
      line = line substr($0, 1, RSTART - 1) substr(hit, 1, sp) "Guest:" substr(hit, sp + 1)
      $0 = substr($0, RSTART + RLENGTH)
    }
    $0 = line $0
    sub(/ +$/, "")
  }
  { print }
  END { if (!bad && !compute && sec != "[expect]") { print ""; print "[compute]"; print "none_samples = 100" } }
' "$f" "$f") || exit $?
printf '%s\n' "$out"
