/** One message of a chat completion request. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}
