// The page's entry: its settings from the gateway, then the app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { loadSettings } from './settings';

void loadSettings().then((settings) =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App settings={settings} />
    </StrictMode>,
  ),
);
