import { connect } from 'node:net'

/**
 * Sends `head` (a request line, headers, maybe part of a body, and nothing more) on a raw
 * connection to 127.0.0.1:`port`, for requests no HTTP client sends; resolves with everything the
 * server wrote once it closes the connection.
 */
export function rawExchange(port: number | string, head: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(head)
    })
    let text = ''
    socket.on('data', (data) => {
      text += String(data)
    })
    socket.on('close', () => resolve(text))
    socket.on('error', reject)
  })
}
