@echo off
rem The Cumulo transfer agent: runs cumulo-agent.mjs from this folder with Node.js 22 (https://nodejs.org).
where node >nul 2>nul
if errorlevel 1 (
  echo Node.js 22 is needed: install it from https://nodejs.org or with "winget install OpenJS.NodeJS.LTS", then run this again.
  pause
  exit /b 1
)
node --max-semi-space-size=2 --optimize-for-size --initial-old-space-size=40 "%~dp0cumulo-agent.mjs" %*
