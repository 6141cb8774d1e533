# torchlint-test: select=TL101
# A reinforcement-learning rollout: the loop that steps the environment calls the policy once per
# environment step, so a sync there (the action read back for the environment) is per step: "every
# environment step". The update that follows it is a training step of its own; the per-iteration logging
# after the update runs once per iteration, not per step. A loop that steps an environment with a random
# policy on the host syncs nothing.
import gym
import numpy as np
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1") for _ in range(4)])


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.actor = nn.Linear(4, 2)
        self.critic = nn.Linear(4, 1)

    def get_action_and_value(self, x):
        logits = self.actor(x)
        action = torch.distributions.Categorical(logits=logits).sample()
        return action, self.critic(x)


agent = Agent().to(device)
optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4)
next_obs = torch.Tensor(envs.reset()[0]).to(device)
for iteration in range(1, 100):
    values = []
    for step in range(128):
        with torch.no_grad():
            action, value = agent.get_action_and_value(next_obs)
        values.append(value)
        next_obs, reward, terminated, truncated, info = envs.step(action.cpu().numpy())  # error: [TL101]
        next_obs = torch.Tensor(next_obs).to(device)
    for epoch in range(4):
        loss = torch.stack(values).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"iteration {iteration} loss {loss.item()}")

env = gym.make("CartPole-v1")
obs = env.reset()
for t in range(1000):
    noise = torch.randn(2)
    obs, reward, done, truncated, info = env.step(int(noise.argmax().item()))
    if done:
        obs = env.reset()
