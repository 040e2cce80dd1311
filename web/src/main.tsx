import { render } from 'preact'
import { WebApp } from './app.js'
import './styles.css'

const root = document.getElementById('app')
if (root) render(<WebApp />, root)
