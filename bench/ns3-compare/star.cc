/* star.cc — a packet-level reference for dlsim's network model, in ns-3
 * (Debian's libns3-dev, ns-3.37), for bench/ns3-compare/run.sh.
 *
 * A star: every host has its own point-to-point access link to one switch
 * (a router: ns-3's global routing), at --rate bit/s each way, with a
 * one-way delay of --lat/2 each, so that host to host is --lat one way.
 * The switch's queue towards each host (where concurrent senders meet) is
 * drop-tail, --qbdp bandwidth-delay products of the host-to-host round
 * trip (2 --lat, at --rate) in 1 500-byte packets (at least 4); a host's
 * own queue holds 1 000 packets (Linux's txqueuelen) or 4 bandwidth-delay
 * products if more, so that a sender never drops its own slow-start burst
 * (Linux's TCP small queues hold the socket back instead); no queue disc
 * above either.  --host-qdisc=fqcodel makes the hosts Linux-like instead:
 * ns-3's FqCoDelQueueDisc (its defaults: 1 024 flow queues, CoDel's 5 ms
 * target and 100 ms interval, 10 240 packets) above each host's own link
 * (Linux's fq_codel, systemd's net.core.default_qdisc), with that link's
 * device queue cut to 2 packets so that the backlog waits in the queue
 * disc (a driver's short ring under BQL); each connection, its ACKs
 * included, then has a queue of its own at its host.  The switch's queue
 * towards each host stays drop-tail of --qbdp.  It adds the line
 * "host_qdisc ENQUEUED DROPPED" (packets, summed over the hosts' queue
 * discs, from the start of the run).  --min-rto S sets ns-3's minimum
 * retransmission timeout (TcpSocketBase's MinRto; 0, the default: ns-3's
 * 1 s; Linux's is 200 ms).
 *
 * TCP: --cc cubic or newreno, an initial window of 10 segments, MSS 1 448
 * (1 500 bytes on the wire with timestamps), SACK, delayed ACKs every 2
 * segments (ns-3's default), send and receive buffers big enough never to
 * limit the window.
 *
 * What is timed: every connection is opened first; once all are
 * established (at --start seconds), each sender hands its --size bytes to
 * its socket at once (plus a uniform jitter of up to --jitter seconds,
 * drawn with --seed); a transfer ends when its receiver has read its last
 * byte.  Prints "time S" (from the first send to the last transfer's end),
 * and "transfers N".  --starts O0,O1,.. (seconds, one per host) gives each
 * host's start offset after --start instead of --jitter's draw, so that
 * run.sh can give dlsim the same offsets.
 *
 * What went wrong on the way: "timeouts N" (entries of the senders'
 * congestion state into CA_LOSS: retransmission timeouts), "recoveries N"
 * (entries into CA_RECOVERY: fast retransmits), "first_timeout S" (from
 * the first send; -1 if none), and "idle_mean F" and "idle_max F": for
 * each link from the switch into a host that receives a transfer, the
 * fraction of the time from the first send to its last transfer's end
 * that it sent nothing (packets counted at PhyTxEnd, with their PPP
 * header), the mean and the largest over those links.  --trace I prints
 * transfer I's congestion window, slow-start threshold (segments) and
 * round-trip samples (ms) at each change, "trace KIND S VALUE", from the
 * first send (transfers in the order of "flow" lines below).  --detail
 * prints, after all that, each transfer's slow start (when and how it
 * ended, its window then, its round trips in it) and the payload bytes it
 * sent twice, each host's data and ACK packets out, and the links into
 * the hosts' mean use per --bin seconds (print_detail says the format).
 *
 * Patterns: --pattern single (host 0 to host 1, two hosts), a2a (every
 * host to every other, --hosts hosts), fanout (host 0 to each of the
 * others; host 0's access link runs at --server-rate).  --delays D0,D1,..
 * (seconds, one per host) gives each host's access link its own one-way
 * delay instead of --lat/2, so that hosts i and j are Di + Dj apart (mixed
 * round trips); --up-rate makes the hosts' links towards the switch faster
 * than --rate (the switch's links towards the hosts, where senders meet,
 * stay at --rate); the switch's queue towards host i is then sized by the
 * longest round trip into it.  Also prints "flow SRC DST S" for every
 * transfer (its end, from the first send) as "flow SRC DST S BYTES" (BYTES:
 * what it had delivered when the first transfer ended).
 *
 *   star --pattern=single --size=1000000 --rate=100e6 --lat=0.05 --cc=cubic
 *
 * Written for dlsim from ns-3's API documentation; not derived from ns-3's
 * examples. */
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Transfer
{
  uint32_t src, dst;
  Ptr<Socket> tx;
  bool connected = false;
  uint64_t received = 0;
  uint64_t at_first = 0;   /* received when the first transfer ended */
  double sent_at = -1, done_at = -1;
  /* --detail: slow start and retransmissions */
  double ss_exit = -1;           /* when the threshold first moved (from the first send) */
  uint32_t ss_cwnd = 0;          /* the window then, segments */
  bool ss_loss = false;          /* left slow start by a loss (else HyStart) */
  uint64_t ss_received = 0;      /* what its receiver had read then */
  double rtt_sum = 0, rtt_max = 0;
  uint32_t rtt_n = 0;            /* round-trip samples in slow start */
  uint32_t recov = 0;            /* its own entries into CA_RECOVERY or CA_LOSS */
  uint64_t sent_end = 0;         /* the highest sequence sent, relative */
  uint32_t isn = 0;
  bool isn_set = false;
  uint64_t retx = 0;             /* payload bytes sent again */
};

std::vector<Transfer> g_transfers;
std::map<Socket *, size_t> g_by_tx;            /* sender socket -> transfer */
std::map<Socket *, size_t> g_by_rx;            /* accepted socket -> transfer */
std::map<std::pair<uint32_t, uint16_t>, size_t> g_by_port;   /* (dst, src port) */
uint64_t g_size = 0;
uint32_t g_done = 0;
uint32_t g_losses = 0;       /* entries into CA_LOSS: retransmission timeouts */
uint32_t g_recoveries = 0;   /* entries into CA_RECOVERY: fast retransmits */
std::vector<double> g_busy;  /* per host: seconds the switch's link into it sent */
std::vector<double> g_down_rate;
std::vector<Ptr<QueueDisc>> g_host_qdiscs;   /* --host-qdisc=fqcodel */
double g_first_rto = -1;     /* when the first timeout fired */
double g_t0 = -1;            /* the first send (for --trace) */
bool g_detail = false;       /* --detail */
double g_bin = 0.01;         /* --detail: the downlinks' utilization, per bin of this */
std::vector<std::vector<double>> g_down_bins;   /* per host, busy seconds per bin */
std::vector<uint64_t> g_up_acks, g_up_ack_bytes, g_up_data, g_up_data_bytes;

/* --trace: one transfer's window, slow-start threshold and round trips,
 * each change as "trace KIND S VALUE" (S from the first send; cwnd and
 * ssthresh in segments, rtt in ms) */
void
on_trace (const char *kind, double scale, uint32_t from, uint32_t to)
{
  if (g_t0 >= 0 && from != to)
    std::printf ("trace %s %.6f %.1f\n", kind, Simulator::Now ().GetSeconds () - g_t0, to / scale);
}

void
on_trace_rtt (Time from, Time to)
{
  if (g_t0 >= 0)
    std::printf ("trace rtt %.6f %.3f\n", Simulator::Now ().GetSeconds () - g_t0, to.GetSeconds () * 1e3);
  (void) from;
}

void
on_cong_state (TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
  if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS)
    {
      g_losses++;
      if (g_first_rto < 0)
        g_first_rto = Simulator::Now ().GetSeconds ();
    }
  if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY)
    g_recoveries++;
}

void
on_down_tx (uint32_t host, Ptr<const Packet> p)
{
  double busy = p->GetSize () * 8.0 / g_down_rate[host];
  g_busy[host] += busy;
  if (g_detail && g_t0 >= 0)
    {
      size_t bin = (size_t) ((Simulator::Now ().GetSeconds () - g_t0) / g_bin);
      if (g_down_bins[host].size () <= bin)
        g_down_bins[host].resize (bin + 1, 0.0);
      g_down_bins[host][bin] += busy;
    }
}

/* --detail: every transfer's slow start (its threshold's first move, the
 * window then, why), its round-trip samples in slow start, and the
 * payload bytes it sent twice */
void
on_detail_ssthresh (size_t i, uint32_t from, uint32_t to)
{
  Transfer &t = g_transfers[i];
  if (g_t0 < 0 || t.ss_exit >= 0 || from == to || t.sent_at < 0)
    return;
  t.ss_exit = Simulator::Now ().GetSeconds () - g_t0;
  t.ss_loss = t.recov > 0;
  t.ss_received = t.received;
  (void) to;
}

void
on_detail_cwnd (size_t i, uint32_t from, uint32_t to)
{
  Transfer &t = g_transfers[i];
  if (t.ss_exit < 0)
    t.ss_cwnd = to / 1448;
  (void) from;
}

void
on_detail_rtt (size_t i, Time from, Time to)
{
  Transfer &t = g_transfers[i];
  if (g_t0 < 0 || t.ss_exit >= 0 || t.sent_at < 0 || to.IsZero ())
    return;
  double ms = to.GetSeconds () * 1e3;
  t.rtt_sum += ms;
  t.rtt_n++;
  t.rtt_max = std::max (t.rtt_max, ms);
  (void) from;
}

void
on_detail_state (size_t i, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
  if ((to == TcpSocketState::CA_RECOVERY || to == TcpSocketState::CA_LOSS) && from != to)
    g_transfers[i].recov++;
}

void
on_detail_tx (size_t i, Ptr<const Packet> p, const TcpHeader &h, Ptr<const TcpSocketBase> s)
{
  Transfer &t = g_transfers[i];
  uint32_t len = p->GetSize ();
  if (len == 0 || t.sent_at < 0)
    return;
  if (!t.isn_set)
    {
      t.isn = h.GetSequenceNumber ().GetValue ();
      t.isn_set = true;
    }
  uint64_t at = (uint32_t) (h.GetSequenceNumber ().GetValue () - t.isn);
  if (at + len <= t.sent_end)
    t.retx += len;
  else if (at < t.sent_end)
    t.retx += t.sent_end - at;
  t.sent_end = std::max (t.sent_end, at + len);
  (void) s;
}

void
on_up_tx (uint32_t host, Ptr<const Packet> p)
{
  if (g_t0 < 0)
    return;
  bool ack = p->GetSize () <= 200;
  (ack ? g_up_acks : g_up_data)[host]++;
  (ack ? g_up_ack_bytes : g_up_data_bytes)[host] += p->GetSize ();
}


void
on_connected (Ptr<Socket> s)
{
  g_transfers[g_by_tx[PeekPointer (s)]].connected = true;
}

void
on_connect_failed (Ptr<Socket> s)
{
  std::fprintf (stderr, "star: a connection failed\n");
  (void) s;
}

void
on_recv (Ptr<Socket> s)
{
  Transfer &t = g_transfers[g_by_rx[PeekPointer (s)]];
  Ptr<Packet> p;
  while ((p = s->Recv ()))
    t.received += p->GetSize ();
  if (t.done_at < 0 && t.received >= g_size)
    {
      t.done_at = Simulator::Now ().GetSeconds ();
      if (g_done == 0)
        for (Transfer &o : g_transfers)
          o.at_first = o.received;
      if (++g_done == g_transfers.size ())
        Simulator::Stop ();
    }
}

/* the listening host's accepted connection: which transfer it is, by the
 * sender's port (each transfer's sender binds a port of its own) */
std::vector<uint32_t> g_host_of_node;

void
on_accept (Ptr<Socket> s, const Address &from)
{
  InetSocketAddress a = InetSocketAddress::ConvertFrom (from);
  uint32_t dst = g_host_of_node[s->GetNode ()->GetId ()];
  g_by_rx[PeekPointer (s)] = g_by_port.at ({dst, a.GetPort ()});
  s->SetRecvCallback (MakeCallback (&on_recv));
}

void
send_all (size_t i)
{
  Transfer &t = g_transfers[i];
  if (!t.connected)
    {
      std::fprintf (stderr, "star: transfer %u -> %u not established at its start\n", t.src, t.dst);
      std::exit (1);
    }
  t.sent_at = Simulator::Now ().GetSeconds ();
  static bool started = false;
  if (!started)   /* the links' busy time counts from the first send */
    {
      std::fill (g_busy.begin (), g_busy.end (), 0.0);
      g_t0 = t.sent_at;
    }
  started = true;
  if (t.tx->Send (Create<Packet> (g_size)) < 0)
    {
      std::fprintf (stderr, "star: send of %llu bytes refused\n", (unsigned long long) g_size);
      std::exit (1);
    }
}

std::vector<double>
parse_delays (const std::string &text)
{
  std::vector<double> v;
  size_t at = 0;
  while (at < text.size ())
    {
      size_t comma = text.find (',', at);
      if (comma == std::string::npos)
        comma = text.size ();
      v.push_back (std::stod (text.substr (at, comma - at)));
      at = comma + 1;
    }
  return v;
}

uint32_t
queue_packets (double rate, double lat, double qbdp)
{
  double bdp = rate * 2 * lat / 8 / 1500;
  return (uint32_t) std::max (4.0, std::ceil (bdp * qbdp));
}

/* --detail's lines: "ss SRC DST EXIT CWND HOW RECEIVED RTT_MEAN RTT_MAX
 * RETX" per transfer (EXIT: when slow start ended, from the first send,
 * -1 if it never did; CWND: the window then, or at the end, segments;
 * HOW: hystart, loss or none; RECEIVED: bytes its receiver had read then;
 * RTT_MEAN, RTT_MAX: its round-trip samples in slow start, ms; RETX:
 * payload bytes sent twice), "up HOST DATA DATA_BYTES ACKS ACK_BYTES" per
 * host (packets its own link sent after the first send, with PPP headers:
 * ACKs are those of 200 bytes or less), and "util T F" per bin (T its
 * start, F the mean over the links into hosts of the fraction it sent) */
void
print_detail (double first, uint32_t hosts)
{
  for (const Transfer &t : g_transfers)
    std::printf ("ss %u %u %.6f %u %s %llu %.1f %.1f %llu\n", t.src, t.dst, t.ss_exit, t.ss_cwnd,
                 t.ss_exit < 0 ? "none" : t.ss_loss ? "loss" : "hystart", (unsigned long long) t.ss_received,
                 t.rtt_n ? t.rtt_sum / t.rtt_n : 0.0, t.rtt_max, (unsigned long long) t.retx);
  for (uint32_t h = 0; h < hosts; h++)
    std::printf ("up %u %llu %llu %llu %llu\n", h, (unsigned long long) g_up_data[h],
                 (unsigned long long) g_up_data_bytes[h], (unsigned long long) g_up_acks[h],
                 (unsigned long long) g_up_ack_bytes[h]);
  size_t bins = 0;
  for (const auto &b : g_down_bins)
    bins = std::max (bins, b.size ());
  for (size_t k = 0; k < bins; k++)
    {
      double sum = 0;
      for (const auto &b : g_down_bins)
        sum += k < b.size () ? b[k] : 0.0;
      std::printf ("util %.3f %.3f\n", k * g_bin, sum / g_bin / hosts);
    }
  (void) first;
}

} // namespace

int
main (int argc, char **argv)
{
  std::string pattern = "single", cc = "cubic";
  uint32_t hosts = 2, seed = 1;
  std::string delays_text;
  double up_rate = 0;
  double rate = 100e6, server_rate = 0, lat = 0.01, qbdp = 1, start = 2, jitter = 0;
  double size = 1e6;
  std::string host_qdisc = "fifo";
  double min_rto = 0;
  CommandLine cmd;
  cmd.AddValue ("pattern", "single, a2a or fanout", pattern);
  cmd.AddValue ("hosts", "hosts in a2a or fanout", hosts);
  cmd.AddValue ("size", "bytes per transfer", size);
  cmd.AddValue ("rate", "access link rate, bit/s", rate);
  cmd.AddValue ("server-rate", "host 0's link rate in fanout (0: --rate)", server_rate);
  cmd.AddValue ("lat", "one-way latency host to host, s", lat);
  cmd.AddValue ("delays", "each host's access link delay, s, comma-separated (default: lat/2 each)", delays_text);
  cmd.AddValue ("up-rate", "the hosts' links towards the switch, bit/s (0: --rate)", up_rate);
  cmd.AddValue ("qbdp", "queue per device, in bandwidth-delay products", qbdp);
  cmd.AddValue ("cc", "cubic or newreno", cc);
  cmd.AddValue ("host-qdisc", "the hosts' own queues: fifo (drop-tail, no queue disc) or fqcodel", host_qdisc);
  cmd.AddValue ("min-rto", "TCP's minimum retransmission timeout, s (0: ns-3's 1 s)", min_rto);
  cmd.AddValue ("start", "when the transfers start, s (all connections open by then)", start);
  cmd.AddValue ("jitter", "each sender starts up to this late, s", jitter);
  cmd.AddValue ("seed", "the jitter's seed", seed);
  std::string starts_text;
  cmd.AddValue ("starts", "each host's start after --start, s, comma-separated (instead of --jitter)", starts_text);
  int trace = -1;
  cmd.AddValue ("trace", "print this transfer's window, threshold and round trips (its index: a2a's order)", trace);
  cmd.AddValue ("detail", "print each transfer's slow start and retransmissions, the hosts' ACKs and the downlinks' use", g_detail);
  cmd.AddValue ("bin", "--detail: the downlinks' use per this many seconds", g_bin);
  cmd.Parse (argc, argv);
  if (pattern == "single")
    hosts = 2;
  g_size = (uint64_t) size;
  if (host_qdisc != "fifo" && host_qdisc != "fqcodel")
    {
      std::fprintf (stderr, "star: --host-qdisc is fifo or fqcodel, not %s\n", host_qdisc.c_str ());
      return 1;
    }
  std::vector<double> delay = parse_delays (delays_text);
  if (delay.empty ())
    delay.assign (hosts, lat / 2);
  if (delay.size () != hosts)
    {
      std::fprintf (stderr, "star: --delays has %zu values for %u hosts\n", delay.size (), hosts);
      return 1;
    }
  double farthest = *std::max_element (delay.begin (), delay.end ());
  RngSeedManager::SetSeed (seed);

  Config::SetDefault ("ns3::TcpL4Protocol::SocketType",
                      TypeIdValue (cc == "newreno" ? TcpNewReno::GetTypeId () : TcpCubic::GetTypeId ()));
  Config::SetDefault ("ns3::TcpSocket::SegmentSize", UintegerValue (1448));
  Config::SetDefault ("ns3::TcpSocket::InitialCwnd", UintegerValue (10));
  Config::SetDefault ("ns3::TcpSocket::SndBufSize", UintegerValue ((uint32_t) std::min (4e9, size + 65536)));
  Config::SetDefault ("ns3::TcpSocket::RcvBufSize", UintegerValue (1u << 30));
  Config::SetDefault ("ns3::TcpSocketBase::Sack", BooleanValue (true));
  Config::SetDefault ("ns3::TcpSocketBase::WindowScaling", BooleanValue (true));
  if (min_rto > 0)
    Config::SetDefault ("ns3::TcpSocketBase::MinRto", TimeValue (Seconds (min_rto)));

  NodeContainer nodes;
  nodes.Create (hosts);
  Ptr<Node> sw = CreateObject<Node> ();
  InternetStackHelper stack;
  stack.Install (nodes);
  stack.Install (sw);
  Ipv4AddressHelper addr;
  addr.SetBase ("10.1.0.0", "255.255.255.0");
  std::vector<Ipv4Address> ip (hosts);
  g_host_of_node.assign (hosts + 1, 0);
  TrafficControlHelper tch;
  TrafficControlHelper fq;
  fq.SetRootQueueDisc ("ns3::FqCoDelQueueDisc");
  for (uint32_t i = 0; i < hosts; i++)
    {
      double r = (pattern == "fanout" && i == 0 && server_rate > 0) ? server_rate : rate;
      double up = up_rate > 0 ? up_rate : r;
      double path = delay[i] + farthest;   /* the longest one-way path into host i */
      PointToPointHelper p2p;
      p2p.SetDeviceAttribute ("DataRate", DataRateValue (DataRate ((uint64_t) r)));
      p2p.SetChannelAttribute ("Delay", TimeValue (Seconds (delay[i])));
      NetDeviceContainer d = p2p.Install (nodes.Get (i), sw);
      d.Get (0)->SetAttribute ("DataRate", DataRateValue (DataRate ((uint64_t) up)));
      /* the host's own queue never drops (Linux's TCP small queues hold a
       * socket back instead): 1 000 packets (Linux's txqueuelen) or 4
       * bandwidth-delay products, more than slow start ever queues there;
       * the switch's, towards the host, is where senders meet */
      d.Get (0)->GetObject<PointToPointNetDevice> ()->GetQueue ()->SetMaxSize (
          QueueSize (QueueSizeUnit::PACKETS,
                     host_qdisc == "fqcodel" ? 2u : std::max (1000u, queue_packets (up, path, 4))));
      d.Get (1)->GetObject<PointToPointNetDevice> ()->GetQueue ()->SetMaxSize (
          QueueSize (QueueSizeUnit::PACKETS, queue_packets (rate, path, qbdp)));
      g_busy.push_back (0);
      g_down_rate.push_back (rate);
      d.Get (1)->TraceConnectWithoutContext ("PhyTxEnd", MakeBoundCallback (&on_down_tx, i));
      g_down_bins.emplace_back ();
      for (auto *v : {&g_up_acks, &g_up_ack_bytes, &g_up_data, &g_up_data_bytes})
        v->push_back (0);
      if (g_detail)
        d.Get (0)->TraceConnectWithoutContext ("PhyTxEnd", MakeBoundCallback (&on_up_tx, i));
      Ipv4InterfaceContainer ifs = addr.Assign (d);
      tch.Uninstall (d);   /* the device's drop-tail queue only */
      if (host_qdisc == "fqcodel")
        g_host_qdiscs.push_back (fq.Install (d.Get (0)).Get (0));
      ip[i] = ifs.GetAddress (0);
      g_host_of_node[nodes.Get (i)->GetId ()] = i;
      addr.NewNetwork ();
    }
  Ipv4GlobalRoutingHelper::PopulateRoutingTables ();

  const uint16_t port = 5000;
  for (uint32_t i = 0; i < hosts; i++)
    {
      Ptr<Socket> l = Socket::CreateSocket (nodes.Get (i), TcpSocketFactory::GetTypeId ());
      l->Bind (InetSocketAddress (Ipv4Address::GetAny (), port));
      l->Listen ();
      l->SetAcceptCallback (MakeNullCallback<bool, Ptr<Socket>, const Address &> (), MakeCallback (&on_accept));
    }
  for (uint32_t s = 0; s < hosts; s++)
    for (uint32_t d = 0; d < hosts; d++)
      {
        bool want = pattern == "a2a" ? s != d : s == 0 && d != 0;
        if (pattern == "single")
          want = s == 0 && d == 1;
        if (!want)
          continue;
        Transfer t;
        t.src = s;
        t.dst = d;
        g_transfers.push_back (t);
      }
  Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable> ();
  std::vector<double> host_start (hosts);
  std::vector<double> offsets = parse_delays (starts_text);
  if (!offsets.empty () && offsets.size () != hosts)
    {
      std::fprintf (stderr, "star: --starts has %zu values for %u hosts\n", offsets.size (), hosts);
      return 1;
    }
  for (uint32_t i = 0; i < hosts; i++)
    host_start[i] = start + (!offsets.empty () ? offsets[i] : jitter > 0 ? u->GetValue (0, jitter) : 0);
  uint16_t next_port = 10000;
  for (size_t i = 0; i < g_transfers.size (); i++)
    {
      Transfer &t = g_transfers[i];
      t.tx = Socket::CreateSocket (nodes.Get (t.src), TcpSocketFactory::GetTypeId ());
      uint16_t sp = next_port++;
      t.tx->Bind (InetSocketAddress (Ipv4Address::GetAny (), sp));
      g_by_tx[PeekPointer (t.tx)] = i;
      g_by_port[{t.dst, sp}] = i;
      t.tx->TraceConnectWithoutContext ("CongState", MakeCallback (&on_cong_state));
      if ((int) i == trace)
        {
          t.tx->TraceConnectWithoutContext ("CongestionWindow", MakeBoundCallback (&on_trace, "cwnd", 1448.0));
          t.tx->TraceConnectWithoutContext ("SlowStartThreshold", MakeBoundCallback (&on_trace, "ssthresh", 1448.0));
          t.tx->TraceConnectWithoutContext ("RTT", MakeCallback (&on_trace_rtt));
        }
      if (g_detail)
        {
          t.tx->TraceConnectWithoutContext ("SlowStartThreshold", MakeBoundCallback (&on_detail_ssthresh, i));
          t.tx->TraceConnectWithoutContext ("CongestionWindow", MakeBoundCallback (&on_detail_cwnd, i));
          t.tx->TraceConnectWithoutContext ("RTT", MakeBoundCallback (&on_detail_rtt, i));
          t.tx->TraceConnectWithoutContext ("CongState", MakeBoundCallback (&on_detail_state, i));
          t.tx->TraceConnectWithoutContext ("Tx", MakeBoundCallback (&on_detail_tx, i));
        }
      t.tx->SetConnectCallback (MakeCallback (&on_connected), MakeCallback (&on_connect_failed));
      /* connections open spread over the first second, then sit idle */
      Simulator::Schedule (Seconds (0.001 * (double) (i % 1000)), &Socket::Connect, t.tx,
                           Address (InetSocketAddress (ip[t.dst], port)));
      Simulator::Schedule (Seconds (host_start[t.src]), &send_all, i);
    }
  Simulator::Run ();
  uint64_t enq = 0, drop = 0;   /* --host-qdisc=fqcodel: its queue discs' packets */
  for (const Ptr<QueueDisc> &q : g_host_qdiscs)
    {
      enq += q->GetStats ().nTotalEnqueuedPackets;
      drop += q->GetStats ().nTotalDroppedPackets;
    }
  Simulator::Destroy ();
  double first = 1e300, last = 0;
  for (const Transfer &t : g_transfers)
    {
      if (t.done_at < 0)
        {
          std::fprintf (stderr, "star: transfer %u -> %u never ended (%llu bytes)\n", t.src, t.dst,
                        (unsigned long long) t.received);
          return 1;
        }
      first = std::min (first, t.sent_at);
      last = std::max (last, t.done_at);
    }
  for (const Transfer &t : g_transfers)
    std::printf ("flow %u %u %.6f %llu\n", t.src, t.dst, t.done_at - first, (unsigned long long) t.at_first);
  std::printf ("time %.6f\ntransfers %zu\n", last - first, g_transfers.size ());
  /* the links into the hosts: how much of the round each one idled, from
   * the first send to the last transfer into it */
  double idle_sum = 0, idle_max = 0;
  uint32_t into = 0;
  for (uint32_t h = 0; h < hosts; h++)
    {
      double end = -1;
      for (const Transfer &t : g_transfers)
        if (t.dst == h)
          end = std::max (end, t.done_at);
      if (end < 0)
        continue;
      double idle = std::max (0.0, 1 - g_busy[h] / (end - first));
      idle_sum += idle;
      idle_max = std::max (idle_max, idle);
      into++;
    }
  std::printf ("timeouts %u\nrecoveries %u\nfirst_timeout %.6f\nidle_mean %.3f\nidle_max %.3f\n", g_losses,
               g_recoveries, g_first_rto < 0 ? -1 : g_first_rto - first, idle_sum / into, idle_max);
  if (!g_host_qdiscs.empty ())
    std::printf ("host_qdisc %llu %llu\n", (unsigned long long) enq, (unsigned long long) drop);
  if (g_detail)
    print_detail (first, hosts);
  return 0;
}
