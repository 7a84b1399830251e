// What every bench server shares: listen on a free loopback port, say so on stdout, and end cleanly.
// The bench reads `READY <port>` from stdout; every other line it prints is a message to the bench.

/** Listens on 127.0.0.1 and prints `READY <port>`; ends on SIGTERM, SIGINT, or when the bench's pipe closes. */
exports.listen = (app) => {
  const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${server.address().port}\n`))
  // process.exit (not the default signal death) lets `--cpu-prof` write its profile.
  const stop = () => process.exit(0)
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  // The bench holds our stdin open: if it dies however it dies, the pipe closes and so do we.
  process.stdin.once('end', stop)
  process.stdin.resume()
  return server
}

/** The address every signed-in system answers for, so that one check fits all. */
exports.ADDRESS = 'bench@example.com'
