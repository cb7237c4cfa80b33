"""1,000 tool calls in one session: every call answers correctly and the server's memory
stays flat. Latency figures are printed, not asserted (bench/mcp-session measures them on
the release build)."""

import sys
import unittest

import long_session


class LongSession(unittest.IsolatedAsyncioTestCase):
    async def test_a_thousand_calls(self):
        stats = await long_session.run(calls=1000)
        print("\n" + long_session.report(stats), file=sys.stderr)
        self.assertEqual(sum(len(v) for v in stats["latencies"].values()), 1000)
        # Memory: after warm-up (caches, the log read once), 800 more calls add no more
        # than a few MB. A leak of a file's text per call would add tens of MB here.
        after_warmup = dict(stats["rss"])[200]
        at_end = dict(stats["rss"])[1000]
        self.assertLess(at_end - after_warmup, 12 * 1024, stats["rss"])


if __name__ == "__main__":
    unittest.main()
