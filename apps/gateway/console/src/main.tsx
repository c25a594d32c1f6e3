import 'uplot/dist/uPlot.min.css';
import './console.css';
import './session.css';
import { render } from 'preact';
import { App } from './app';

const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(<App />, root);
}
