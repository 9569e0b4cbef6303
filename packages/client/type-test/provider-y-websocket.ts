export { WebsocketProvider as Provider } from 'y-websocket'
