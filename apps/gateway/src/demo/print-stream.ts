/** Prints a message's server-sent events as they arrive; resolves with its outcome. */
export async function printStream(
  response: Response,
  print: (line: string) => void,
): Promise<string> {
  if (response.body === null) throw new Error(`no body (status ${response.status})`);
  const decoder = new TextDecoder();
  let buffer = '';
  let outcome = 'none';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const name = /^event: (.*)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as Record<
        string,
        unknown
      >;
      switch (name) {
        case 'discard':
          print(`discard: the partial answer is void (${String(data['reason'])})`);
          break;
        case 'decision': {
          const to = data['to'] as
            | { providerId: string; profileId: string; model: string }
            | undefined;
          const target =
            to === undefined ? '' : ` → ${to.providerId}/${to.model} (${to.profileId})`;
          print(`decision: ${String(data['label'])} after ${String(data['reason'])}${target}`);
          break;
        }
        case 'tool-call':
          print(`tool call: ${String(data['name'])}`);
          break;
        case 'outcome':
          outcome = String(data['outcome']);
          print(
            `${outcome} from ${String(data['model'] ?? '-')}: ${String(data['text']).replace(/\s+/g, ' ')}`,
          );
          break;
        default:
          break;
      }
    }
  }
  return outcome;
}
